package dev.rendezvous.bus.event;

import com.fasterxml.jackson.annotation.JsonIgnore;

/**
 * The cluster's admin kubeconfig (with the ingress CA merged in) was stored after the controller uploaded the
 * ingress certificate: one of upstream's conditions for {@code finalizing} → {@code installed}.
 */
public record KubeconfigStored() implements BusPayload {

    public static final String TYPE = "kubeconfig_stored";

    @Override
    @JsonIgnore
    public String typeName() {
        return TYPE;
    }
}
