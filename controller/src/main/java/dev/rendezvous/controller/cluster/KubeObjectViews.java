package dev.rendezvous.controller.cluster;

import dev.rendezvous.controller.service.ProxySettings;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.certificates.v1.CertificateSigningRequest;
import io.fabric8.kubernetes.api.model.certificates.v1.CertificateSigningRequestCondition;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

/**
 * The cluster's objects as the controller's loops see them ({@link Views}), from fabric8's models (Kubernetes kinds)
 * and from generic resources (the OpenShift kinds, which fabric8 no longer models).
 */
final class KubeObjectViews {
  private KubeObjectViews() {
  }

  static Views.Node toNode(Node n) {
    List<String> ips = new ArrayList<>();
    boolean ready = false;
    boolean tainted = false;
    String uuid = null;
    if (n.getStatus() != null) {
      for (NodeAddress a : n.getStatus().getAddresses()) {
        if ("InternalIP".equals(a.getType()) && a.getAddress() != null) {
          ips.add(a.getAddress());
        }
      }
      for (NodeCondition c : n.getStatus().getConditions()) {
        if ("Ready".equals(c.getType())) {
          ready = "True".equals(c.getStatus());
        }
      }
      if (n.getStatus().getNodeInfo() != null) {
        uuid = n.getStatus().getNodeInfo().getSystemUUID();
      }
    }
    if (n.getSpec() != null && n.getSpec().getTaints() != null) {
      tainted = n.getSpec().getTaints().stream().anyMatch(t -> Fabric8ClusterPort.UNINITIALIZED_TAINT.equals(t.getKey()));
    }
    Map<String, String> labels = n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
    return new Views.Node(n.getMetadata().getName(), ips, ready, labels, tainted, uuid);
  }

  static Views.Csr toCsr(CertificateSigningRequest c) {
    boolean approved = false;
    boolean denied = false;
    boolean failed = false;
    if (c.getStatus() != null) {
      for (CertificateSigningRequestCondition cond : c.getStatus().getConditions()) {
        boolean on = !"False".equals(cond.getStatus());
        switch (String.valueOf(cond.getType())) {
          case "Approved" -> approved |= on;
          case "Denied" -> denied |= on;
          case "Failed" -> failed |= on;
          default -> { }
        }
      }
    }
    String signer = c.getSpec() == null ? null : c.getSpec().getSignerName();
    String user = c.getSpec() == null ? null : c.getSpec().getUsername();
    CsrSubject subject = CsrSubject.fromSpecRequest(c.getSpec() == null ? null : c.getSpec().getRequest());
    return new Views.Csr(c.getMetadata().getName(), signer, user, subject.commonName(), subject.organizations(),
        approved, denied, failed);
  }

  // ---- config.openshift.io kinds, read as generic resources: their status is a JSON tree of maps and lists ----

  /** {@code status.conditions} and {@code status.versions[0].version} of a ClusterOperator. */
  static Views.ClusterOperator toOperator(GenericKubernetesResource co) {
    Map<?, ?> status = status(co);
    String version = "";
    List<?> versions = list(status.get("versions"));
    if (!versions.isEmpty()) {
      Object first = map(versions.get(0)).get("version");
      if (first != null) {
        version = first.toString();
      }
    }
    return new Views.ClusterOperator(co.getMetadata().getName(), conditions(status), version);
  }

  /** {@code status.conditions}, {@code status.desired.version} and {@code status.capabilities} of a ClusterVersion. */
  static Views.ClusterVersion toVersion(GenericKubernetesResource cv) {
    Map<?, ?> status = status(cv);
    Object desired = map(status.get("desired")).get("version");
    Map<?, ?> caps = map(status.get("capabilities"));
    var enabled = new HashSet<String>();
    var known = new HashSet<String>();
    for (Object c : list(caps.get("enabledCapabilities"))) {
      enabled.add(text(c));
    }
    for (Object c : list(caps.get("knownCapabilities"))) {
      known.add(text(c));
    }
    return new Views.ClusterVersion(conditions(status), desired == null ? "" : desired.toString(), enabled, known);
  }

  /** {@code status.httpProxy}, {@code httpsProxy}, {@code noProxy} of the Proxy {@code cluster}. */
  static ProxySettings toProxySettings(GenericKubernetesResource proxy) {
    Object s = proxy.getAdditionalProperties().get("status");
    if (!(s instanceof Map<?, ?> status)) {
      return ProxySettings.NONE;
    }
    return new ProxySettings(text(status.get("httpProxy")), text(status.get("httpsProxy")), text(status.get("noProxy")));
  }

  /** {@code status.conditions} in their order (ClusterOperator and ClusterVersion share the condition type). */
  private static List<Views.Condition> conditions(Map<?, ?> status) {
    List<Views.Condition> conditions = new ArrayList<>();
    for (Object o : list(status.get("conditions"))) {
      Map<?, ?> c = map(o);
      String message = text(c.get("message"));
      conditions.add(new Views.Condition(text(c.get("type")), text(c.get("status")), message == null ? "" : message));
    }
    return conditions;
  }

  private static Map<?, ?> status(GenericKubernetesResource r) {
    return map(r.getAdditionalProperties().get("status"));
  }

  private static Map<?, ?> map(Object o) {
    return o instanceof Map<?, ?> m ? m : Map.of();
  }

  private static List<?> list(Object o) {
    return o instanceof List<?> l ? l : List.of();
  }

  /** A scalar as the typed model had it (strings; null when absent). */
  private static String text(Object o) {
    return o == null ? null : o.toString();
  }
}
