package dev.rendezvous.gateway;

/** A host as agents name it: upstream's host primary key is (id, infra_env_id). */
public record HostKey(String infraEnvId, String hostId) {
}
