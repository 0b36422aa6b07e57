package dev.rendezvous.kube;

import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.List;

/** The custom resources Rendezvous serves, as upstream defines them (group, version, kind, plural, scope). */
public enum Kinds {
  INFRA_ENV("agent-install.openshift.io", "v1beta1", "InfraEnv", "infraenvs", true),
  AGENT("agent-install.openshift.io", "v1beta1", "Agent", "agents", true),
  NMSTATE_CONFIG("agent-install.openshift.io", "v1beta1", "NMStateConfig", "nmstateconfigs", true),
  AGENT_CLASSIFICATION("agent-install.openshift.io", "v1beta1", "AgentClassification", "agentclassifications", true),
  AGENT_CLUSTER_INSTALL("extensions.hive.openshift.io", "v1beta1", "AgentClusterInstall", "agentclusterinstalls", true),
  CLUSTER_DEPLOYMENT("hive.openshift.io", "v1", "ClusterDeployment", "clusterdeployments", true),
  CLUSTER_IMAGE_SET("hive.openshift.io", "v1", "ClusterImageSet", "clusterimagesets", false);

  /** The label upstream puts on every Agent: the name of the InfraEnv it booted from. */
  public static final String INFRA_ENV_LABEL = "infraenvs.agent-install.openshift.io";

  public final String group;
  public final String version;
  public final String kind;
  public final String plural;
  public final boolean namespaced;

  Kinds(String group, String version, String kind, String plural, boolean namespaced) {
    this.group = group;
    this.version = version;
    this.kind = kind;
    this.plural = plural;
    this.namespaced = namespaced;
  }

  public String apiVersion() {
    return group + "/" + version;
  }

  public ResourceDefinitionContext context() {
    return new ResourceDefinitionContext.Builder().withGroup(group).withVersion(version).withKind(kind)
        .withPlural(plural).withNamespaced(namespaced).build();
  }

  /** The CRD manifest files under {@code crds/} on the classpath, one per kind. */
  public static List<String> crdResources() {
    return List.of("crds/clusterimagesets.yaml", "crds/clusterdeployments.yaml", "crds/agentclusterinstalls.yaml",
        "crds/infraenvs.yaml", "crds/nmstateconfigs.yaml", "crds/agents.yaml", "crds/agentclassifications.yaml");
  }
}
