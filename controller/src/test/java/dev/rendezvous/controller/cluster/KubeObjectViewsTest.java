package dev.rendezvous.controller.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.controller.service.ProxySettings;
import dev.rendezvous.controller.support.ControllerLog;
import dev.rendezvous.controller.testing.MockCluster;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The config.openshift.io kinds (no fabric8 models of them since 8.0) read from generic resources as an OpenShift
 * API server serves them: the same views the typed models gave.
 */
class KubeObjectViewsTest {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private static GenericKubernetesResource yaml(String text) {
    return SERIALIZATION.unmarshal(text, GenericKubernetesResource.class);
  }

  @Test
  void clusterOperatorConditionsInOrderAndTheFirstVersion() {
    GenericKubernetesResource co = yaml("""
        apiVersion: config.openshift.io/v1
        kind: ClusterOperator
        metadata:
          name: console
        spec: {}
        status:
          conditions:
          - lastTransitionTime: "2025-03-01T10:00:00Z"
            reason: AsExpected
            status: "False"
            type: Degraded
          - lastTransitionTime: "2025-03-01T10:00:00Z"
            message: 'SyncLoopRefreshProgressing: working toward version 4.18.3'
            reason: SyncLoopRefresh_InProgress
            status: "True"
            type: Progressing
          versions:
          - name: operator
            version: 4.18.3
          - name: console
            version: 4.18.3-x
        """);
    assertEquals(new Views.ClusterOperator("console", List.of(
        new Views.Condition("Degraded", "False", ""),
        new Views.Condition("Progressing", "True", "SyncLoopRefreshProgressing: working toward version 4.18.3")),
        "4.18.3"), KubeObjectViews.toOperator(co));
  }

  @Test
  void clusterOperatorWithoutStatusYet() {
    GenericKubernetesResource co = yaml("""
        apiVersion: config.openshift.io/v1
        kind: ClusterOperator
        metadata:
          name: authentication
        spec: {}
        """);
    assertEquals(new Views.ClusterOperator("authentication", List.of(), ""), KubeObjectViews.toOperator(co));
    GenericKubernetesResource noVersion = yaml("""
        apiVersion: config.openshift.io/v1
        kind: ClusterOperator
        metadata:
          name: authentication
        status:
          conditions:
          - type: Available
            status: "False"
            message: OAuth server unreachable
          versions: []
        """);
    assertEquals(new Views.ClusterOperator("authentication",
        List.of(new Views.Condition("Available", "False", "OAuth server unreachable")), ""),
        KubeObjectViews.toOperator(noVersion));
  }

  @Test
  void clusterVersionConditionsDesiredVersionAndCapabilities() {
    GenericKubernetesResource cv = yaml("""
        apiVersion: config.openshift.io/v1
        kind: ClusterVersion
        metadata:
          name: version
        spec:
          clusterID: 00000000-0000-0000-0000-000000000001
        status:
          availableUpdates: null
          capabilities:
            enabledCapabilities: [baremetal, marketplace]
            knownCapabilities: [baremetal, Console, marketplace]
          conditions:
          - type: Available
            status: "True"
            message: Done applying 4.18.3
          - type: Failing
            status: "False"
          desired:
            image: quay.io/openshift-release-dev/ocp-release@sha256:0000
            version: 4.18.3
        """);
    Views.ClusterVersion view = KubeObjectViews.toVersion(cv);
    assertEquals(new Views.ClusterVersion(List.of(new Views.Condition("Available", "True", "Done applying 4.18.3"),
        new Views.Condition("Failing", "False", "")), "4.18.3", Set.of("baremetal", "marketplace"),
        Set.of("baremetal", "Console", "marketplace")), view);
    assertFalse(view.capabilityEnabled("Console"));
    assertTrue(view.capabilityEnabled("marketplace"));
    assertTrue(view.capabilityEnabled("Insights"), "unknown to this version: always on");
  }

  @Test
  void clusterVersionWithoutStatusYet() {
    GenericKubernetesResource cv = yaml("""
        apiVersion: config.openshift.io/v1
        kind: ClusterVersion
        metadata:
          name: version
        spec:
          clusterID: 00000000-0000-0000-0000-000000000001
        """);
    assertEquals(new Views.ClusterVersion(List.of(), "", Set.of(), Set.of()), KubeObjectViews.toVersion(cv));
  }

  @Test
  void proxyStatus() {
    assertEquals(new ProxySettings("http://proxy:3128", "http://proxy:3129", ".cluster.local,10.0.0.0/16"),
        KubeObjectViews.toProxySettings(yaml("""
            apiVersion: config.openshift.io/v1
            kind: Proxy
            metadata:
              name: cluster
            spec:
              httpProxy: http://spec-only:3128
            status:
              httpProxy: http://proxy:3128
              httpsProxy: http://proxy:3129
              noProxy: .cluster.local,10.0.0.0/16
            """)));
    assertEquals(ProxySettings.NONE, KubeObjectViews.toProxySettings(yaml("""
        apiVersion: config.openshift.io/v1
        kind: Proxy
        metadata:
          name: cluster
        spec: {}
        """)));
    assertEquals(ProxySettings.NONE, KubeObjectViews.toProxySettings(yaml("""
        apiVersion: config.openshift.io/v1
        kind: Proxy
        metadata:
          name: cluster
        status: {}
        """)));
  }

  /** Through the API: no proxies served (no CRD) is no proxy; then the cluster proxy's status. */
  @Test
  void clusterProxyFromTheApiServer(@TempDir Path dir) throws Exception {
    try (MockCluster kube = new MockCluster(dir)) {
      Fabric8ClusterPort port = new Fabric8ClusterPort(kube.client, "assisted-installer",
          new ControllerLog("proxy-test", 100_000));
      try {
        assertEquals(ProxySettings.NONE, port.clusterProxy().get(30, TimeUnit.SECONDS));
        kube.setProxy("http://proxy:3128", "http://proxy:3129", ".cluster.local");
        assertEquals(new ProxySettings("http://proxy:3128", "http://proxy:3129", ".cluster.local"),
            port.clusterProxy().get(30, TimeUnit.SECONDS));
      } finally {
        port.close();
      }
    }
  }
}
