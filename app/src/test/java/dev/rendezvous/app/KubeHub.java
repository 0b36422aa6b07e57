package dev.rendezvous.app;

import dev.rendezvous.kube.Kinds;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A hub for the kube face's tests. No kube-apiserver can run here (no containers, no binaries): this is fabric8's
 * Kubernetes mock server in CRUD mode — real HTTP, list and watch, status subresources, merge patches — with our CRDs
 * registered, and a kubeconfig file pointing at it, as a user would pass with {@code --kubeconfig}. The kube face's tests
 * and its benchmark ({@code KubeFleetBench}) use it.
 */
public final class KubeHub implements AutoCloseable {
  private final KubernetesMockServer server;
  private final KubernetesClient client;
  private final Path kubeconfig;

  public KubeHub(Path dir) throws IOException {
    server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(),
        false);
    server.init();
    client = server.createClient();
    for (String crd : Kinds.crdResources()) {
      try (InputStream in = Kinds.class.getClassLoader().getResourceAsStream(crd)) {
        client.apiextensions().v1().customResourceDefinitions()
            .resource(client.getKubernetesSerialization().unmarshal(in, CustomResourceDefinition.class)).create();
      }
    }
    kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(kubeconfig, String.join("\n",
        "apiVersion: v1", "kind: Config", "current-context: hub",
        "clusters:", "- name: hub", "  cluster:", "    server: " + client.getMasterUrl().toString().replaceAll("/$", ""),
        "contexts:", "- name: hub", "  context:", "    cluster: hub", "    user: admin",
        "users:", "- name: admin", "  user:", "    token: not-checked-by-the-mock-server", ""));
  }

  public Path kubeconfig() {
    return kubeconfig;
  }

  public KubernetesClient client() {
    return client;
  }

  /** Applies a GitOps repository's file (a YAML stream of objects), as {@code kubectl apply -f} would create them. */
  void apply(String classpathResource) throws IOException {
    try (InputStream in = KubeHub.class.getClassLoader().getResourceAsStream(classpathResource)) {
      List<HasMetadata> items = client.load(in).items();
      for (HasMetadata item : items) {
        client.resource(item).create();
      }
    }
  }

  GenericKubernetesResource get(Kinds kind, String ns, String name) {
    var ops = client.genericKubernetesResources(kind.context());
    return kind.namespaced ? ops.inNamespace(ns).withName(name).get() : ops.withName(name).get();
  }

  List<GenericKubernetesResource> list(Kinds kind, String ns) {
    return client.genericKubernetesResources(kind.context()).inNamespace(ns).list().getItems();
  }

  void mergePatch(Kinds kind, String ns, String name, String json) {
    client.genericKubernetesResources(kind.context()).inNamespace(ns).withName(name)
        .patch(PatchContext.of(PatchType.JSON_MERGE), json);
  }

  void delete(Kinds kind, String ns, String name) {
    client.genericKubernetesResources(kind.context()).inNamespace(ns).withName(name).delete();
  }

  /** A status condition of a CR ({@code status.conditions[type]}), or null. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> condition(GenericKubernetesResource r, String type) {
    if (r == null || !(r.getAdditionalProperties().get("status") instanceof Map<?, ?> status)
        || !(status.get("conditions") instanceof List<?> conditions)) {
      return null;
    }
    for (Object c : conditions) {
      if (c instanceof Map<?, ?> m && type.equals(m.get("type"))) {
        return (Map<String, Object>) m;
      }
    }
    return null;
  }

  static boolean conditionIs(GenericKubernetesResource r, String type, String status, String reason) {
    Map<String, Object> c = condition(r, type);
    return c != null && status.equals(c.get("status")) && (reason == null || reason.equals(c.get("reason")));
  }

  @SuppressWarnings("unchecked")
  static Object path(GenericKubernetesResource r, String... keys) {
    Object o = r == null ? null : r.getAdditionalProperties();
    for (String k : keys) {
      if (!(o instanceof Map<?, ?> m)) {
        return null;
      }
      o = ((Map<String, Object>) m).get(k);
    }
    return o;
  }

  /** Requests the hub's API server has received so far. */
  public long requests() {
    return server.getRequestCount();
  }

  @Override
  public void close() {
    client.close();
    server.destroy();
  }
}
