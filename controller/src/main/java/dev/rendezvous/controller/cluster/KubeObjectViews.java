package dev.rendezvous.controller.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.certificates.v1.CertificateSigningRequest;
import io.fabric8.kubernetes.api.model.certificates.v1.CertificateSigningRequestCondition;
import io.fabric8.openshift.api.model.config.v1.ClusterOperator;
import io.fabric8.openshift.api.model.config.v1.ClusterOperatorStatusCondition;
import io.fabric8.openshift.api.model.config.v1.ClusterVersion;
import io.fabric8.openshift.api.model.config.v1.ClusterVersionCapabilitiesStatus;
import io.fabric8.openshift.api.model.config.v1.ClusterOperatorStatus;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

/** The cluster's objects as the controller's loops see them ({@link Views}), from fabric8's models. */
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

  static Views.ClusterOperator toOperator(ClusterOperator co) {
    List<Views.Condition> conditions = new ArrayList<>();
    String version = "";
    ClusterOperatorStatus s = co.getStatus();
    if (s != null) {
      for (ClusterOperatorStatusCondition c : s.getConditions()) {
        conditions.add(new Views.Condition(c.getType(), c.getStatus(), c.getMessage() == null ? "" : c.getMessage()));
      }
      if (s.getVersions() != null && !s.getVersions().isEmpty() && s.getVersions().get(0).getVersion() != null) {
        version = s.getVersions().get(0).getVersion();
      }
    }
    return new Views.ClusterOperator(co.getMetadata().getName(), conditions, version);
  }

  static Views.ClusterVersion toVersion(ClusterVersion cv) {
    List<Views.Condition> conditions = new ArrayList<>();
    String desired = "";
    var enabled = new HashSet<String>();
    var known = new HashSet<String>();
    if (cv.getStatus() != null) {
      for (ClusterOperatorStatusCondition c : cv.getStatus().getConditions()) {
        conditions.add(new Views.Condition(c.getType(), c.getStatus(), c.getMessage() == null ? "" : c.getMessage()));
      }
      if (cv.getStatus().getDesired() != null && cv.getStatus().getDesired().getVersion() != null) {
        desired = cv.getStatus().getDesired().getVersion();
      }
      ClusterVersionCapabilitiesStatus caps = cv.getStatus().getCapabilities();
      if (caps != null) {
        if (caps.getEnabledCapabilities() != null) {
          enabled.addAll(caps.getEnabledCapabilities());
        }
        if (caps.getKnownCapabilities() != null) {
          known.addAll(caps.getKnownCapabilities());
        }
      }
    }
    return new Views.ClusterVersion(conditions, desired, enabled, known);
  }
}
