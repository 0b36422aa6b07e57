package dev.rendezvous.controller.loops;

import dev.rendezvous.controller.cluster.Views;
import java.util.Locale;
import java.util.Set;

/**
 * Which pending CSRs the controller approves. Stricter than upstream (which approves every pending CSR): only a
 * kubelet's CSR for a node that is a host of this cluster.
 * <ul>
 *   <li>signer {@code kubernetes.io/kube-apiserver-client-kubelet} or {@code kubernetes.io/kubelet-serving};</li>
 *   <li>subject CN {@code system:node:<name>} with O {@code system:nodes};</li>
 *   <li>requested by that node itself ({@code system:node:<name>}), or, for a client certificate only, by the
 *       machine-config node-bootstrapper (a kubelet's first certificate);</li>
 *   <li>{@code <name>} is the expected node name (requested or inventory hostname) of a host of this cluster.</li>
 * </ul>
 */
public final class CsrPolicy {
  public static final String CLIENT_SIGNER = "kubernetes.io/kube-apiserver-client-kubelet";
  public static final String SERVING_SIGNER = "kubernetes.io/kubelet-serving";
  public static final String NODE_BOOTSTRAPPER =
      "system:serviceaccount:openshift-machine-config-operator:node-bootstrapper";
  public static final String NODE_PREFIX = "system:node:";
  public static final String REASON = "NodeCSRApprove";
  public static final String MESSAGE = "This CSR was approved by the assisted-installer-controller";

  /** The verdict on one CSR: the node it is for, or why it is left alone. */
  public record Decision(boolean approve, String node, String reason) {
  }

  private CsrPolicy() {
  }

  public static Decision decide(Views.Csr csr, Set<String> hostNodeNames) {
    if (!csr.pending()) {
      return new Decision(false, null, "not pending");
    }
    boolean client = CLIENT_SIGNER.equals(csr.signerName());
    if (!client && !SERVING_SIGNER.equals(csr.signerName())) {
      return new Decision(false, null, "signer " + csr.signerName() + " is not a kubelet signer");
    }
    String cn = csr.commonName();
    if (cn == null || !cn.startsWith(NODE_PREFIX) || cn.length() == NODE_PREFIX.length()) {
      return new Decision(false, null, "subject CN '" + cn + "' does not name a node");
    }
    if (!csr.organizations().contains("system:nodes")) {
      return new Decision(false, null, "subject is not in organization system:nodes");
    }
    String node = cn.substring(NODE_PREFIX.length()).toLowerCase(Locale.ROOT);
    String requester = csr.username() == null ? "" : csr.username();
    boolean byTheNode = requester.toLowerCase(Locale.ROOT).equals(NODE_PREFIX + node);
    boolean byBootstrapper = client && NODE_BOOTSTRAPPER.equals(requester);
    if (!byTheNode && !byBootstrapper) {
      return new Decision(false, node, "requested by '" + requester + "', neither the node nor the node-bootstrapper");
    }
    if (!hostNodeNames.contains(node)) {
      return new Decision(false, node, "node " + node + " is not a host of this cluster");
    }
    return new Decision(true, node, "kubelet " + (client ? "client" : "serving") + " certificate of host node " + node);
  }
}
