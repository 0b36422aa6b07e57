package dev.rendezvous.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

/**
 * The custom resources as the kube face sees them: one informer per kind (a list, then a watch: no polling), read
 * from their caches as Jackson trees of our own, and the few writes the reconcilers make (create or delete an Agent,
 * replace an object or its status subresource, conditional on its resourceVersion; Secrets). Counts the requests it
 * sends outside the informers.
 */
public final class KubeStore implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final KubernetesClient client;
  private final List<String> namespaces;
  private final Map<Kinds, List<SharedIndexInformer<GenericKubernetesResource>>> informers = new EnumMap<>(Kinds.class);
  private final AtomicLong writes = new AtomicLong();
  private final AtomicLong reads = new AtomicLong();

  public KubeStore(KubernetesClient client, List<String> namespaces) {
    this.client = client;
    this.namespaces = namespaces;
  }

  public KubernetesClient client() {
    return client;
  }

  /** Starts an informer for {@code kind} (per watched namespace); {@code onChange} gets the object's namespace and name. */
  public void watch(Kinds kind, BiConsumer<String, GenericKubernetesResource> onChange) {
    watch(kind, onChange, Map.of());
  }

  /** As {@link #watch(Kinds, BiConsumer)}, with indexes of the cache (name → the values an object is filed under). */
  public void watch(Kinds kind, BiConsumer<String, GenericKubernetesResource> onChange,
      Map<String, java.util.function.Function<GenericKubernetesResource, List<String>>> indexers) {
    ResourceEventHandler<GenericKubernetesResource> handler = new ResourceEventHandler<>() {
      @Override
      public void onAdd(GenericKubernetesResource obj) {
        onChange.accept(obj.getMetadata().getNamespace(), obj);
      }

      @Override
      public void onUpdate(GenericKubernetesResource oldObj, GenericKubernetesResource newObj) {
        onChange.accept(newObj.getMetadata().getNamespace(), newObj);
      }

      @Override
      public void onDelete(GenericKubernetesResource obj, boolean deletedFinalStateUnknown) {
        onChange.accept(obj.getMetadata().getNamespace(), obj);
      }
    };
    List<SharedIndexInformer<GenericKubernetesResource>> list = new ArrayList<>();
    var ops = client.genericKubernetesResources(kind.context());
    if (!kind.namespaced || namespaces.isEmpty()) {
      list.add((kind.namespaced ? ops.inAnyNamespace() : ops).runnableInformer(0));
    } else {
      for (String ns : namespaces) {
        list.add(ops.inNamespace(ns).runnableInformer(0));
      }
    }
    for (SharedIndexInformer<GenericKubernetesResource> i : list) {
      if (!indexers.isEmpty()) {
        i.addIndexers(indexers);
      }
      i.addEventHandler(handler);
      i.start();
    }
    informers.put(kind, list);
  }

  /** The cached objects a cache index files under {@code value}. */
  public List<JsonNode> byIndex(Kinds kind, String index, String value) {
    List<JsonNode> out = new ArrayList<>();
    for (SharedIndexInformer<GenericKubernetesResource> i : informers.getOrDefault(kind, List.of())) {
      i.getIndexer().byIndex(index, value).forEach(r -> out.add(tree(r)));
    }
    return out;
  }

  /** The cached object, or empty. */
  public Optional<JsonNode> get(Kinds kind, String namespace, String name) {
    String key = kind.namespaced ? namespace + "/" + name : name;
    for (SharedIndexInformer<GenericKubernetesResource> i : informers.getOrDefault(kind, List.of())) {
      GenericKubernetesResource r = i.getStore().getByKey(key);
      if (r != null) {
        return Optional.of(tree(r));
      }
    }
    return Optional.empty();
  }

  /** Every cached object of a kind in a namespace (null: all). */
  public List<JsonNode> list(Kinds kind, String namespace) {
    List<JsonNode> out = new ArrayList<>();
    for (SharedIndexInformer<GenericKubernetesResource> i : informers.getOrDefault(kind, List.of())) {
      for (GenericKubernetesResource r : i.getStore().list()) {
        if (namespace == null || namespace.equals(r.getMetadata().getNamespace())) {
          out.add(tree(r));
        }
      }
    }
    return out;
  }

  public boolean synced() {
    return informers.values().stream().flatMap(List::stream).allMatch(SharedIndexInformer::hasSynced);
  }

  /** Creates an object (a whole tree with apiVersion, kind, metadata); false when it exists already. */
  public boolean create(Kinds kind, String namespace, JsonNode object) {
    writes.incrementAndGet();
    GenericKubernetesResource r = client.getKubernetesSerialization().unmarshal(object.toString(),
        GenericKubernetesResource.class);
    try {
      client.genericKubernetesResources(kind.context()).inNamespace(namespace).resource(r).create();
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        return false;
      }
      throw e;
    }
  }

  /** JSON merge patch of the object (metadata, spec); a {@code metadata.resourceVersion} in it makes it conditional. */
  public void patch(Kinds kind, String namespace, String name, JsonNode mergePatch) {
    writes.incrementAndGet();
    client.genericKubernetesResources(kind.context()).inNamespace(namespace).withName(name)
        .patch(PatchContext.of(PatchType.JSON_MERGE), mergePatch.toString());
  }

  /**
   * Replaces the object (PUT) with {@code object}, a tree read from the cache and changed: its resourceVersion makes
   * it conditional, so a concurrent change is a 409 and the reconcile runs again on what is current. Used for
   * metadata (finalizers) and spec; a PUT rather than a merge patch, whose list handling servers differ on.
   */
  public void update(Kinds kind, JsonNode object, java.util.function.UnaryOperator<ObjectNode> change) {
    onFresh(kind, object, change, false);
  }

  /** Replaces the status subresource (PUT .../status), conditional on the object's resourceVersion. */
  public void updateStatus(Kinds kind, JsonNode object, java.util.function.UnaryOperator<ObjectNode> change) {
    onFresh(kind, object, change, true);
  }

  /**
   * Applies {@code change} to the cached object and writes it; on a conflict (the cache behind the server, often
   * behind our own last write) once more on the object read from the server.
   */
  private void onFresh(Kinds kind, JsonNode cached, java.util.function.UnaryOperator<ObjectNode> change, boolean status) {
    writes.incrementAndGet();
    try {
      write(kind, change.apply(cached.deepCopy()), status);
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
      reads.incrementAndGet();
      String ns = cached.path("metadata").path("namespace").asText(null);
      String name = cached.path("metadata").path("name").asText();
      var ops = client.genericKubernetesResources(kind.context());
      GenericKubernetesResource fresh = kind.namespaced ? ops.inNamespace(ns).withName(name).get() : ops.withName(name).get();
      if (fresh == null) {
        return; // gone meanwhile
      }
      writes.incrementAndGet();
      write(kind, change.apply((ObjectNode) tree(fresh)), status);
    }
  }

  private void write(Kinds kind, JsonNode object, boolean status) {
    var r = resource(kind, object);
    if (status) {
      r.updateStatus();
    } else {
      r.update();
    }
  }

  private io.fabric8.kubernetes.client.dsl.Resource<GenericKubernetesResource> resource(Kinds kind, JsonNode object) {
    GenericKubernetesResource r = client.getKubernetesSerialization().unmarshal(object.toString(),
        GenericKubernetesResource.class);
    var ops = client.genericKubernetesResources(kind.context());
    return kind.namespaced ? ops.inNamespace(r.getMetadata().getNamespace()).resource(r) : ops.resource(r);
  }

  public void delete(Kinds kind, String namespace, String name) {
    writes.incrementAndGet();
    client.genericKubernetesResources(kind.context()).inNamespace(namespace).withName(name).delete();
  }

  /** A Secret's value (decoded), or empty when the Secret or the key is missing. */
  public Optional<String> secretValue(String namespace, String name, String key) {
    reads.incrementAndGet();
    Secret s = client.secrets().inNamespace(namespace).withName(name).get();
    if (s == null) {
      return Optional.empty();
    }
    if (s.getStringData() != null && s.getStringData().containsKey(key)) {
      return Optional.of(s.getStringData().get(key));
    }
    if (s.getData() == null || !s.getData().containsKey(key)) {
      return Optional.empty();
    }
    return Optional.of(new String(java.util.Base64.getDecoder().decode(s.getData().get(key)),
        java.nio.charset.StandardCharsets.UTF_8));
  }

  /** A ConfigMap's data, or empty. */
  public Optional<Map<String, String>> configMapData(String namespace, String name) {
    reads.incrementAndGet();
    var cm = client.configMaps().inNamespace(namespace).withName(name).get();
    return cm == null ? Optional.empty() : Optional.of(cm.getData() == null ? Map.of() : cm.getData());
  }

  /** Creates or replaces a Secret. */
  public void putSecret(Secret secret) {
    writes.incrementAndGet();
    client.secrets().inNamespace(secret.getMetadata().getNamespace()).resource(secret)
        .createOr(NonDeletingOperation::update);
  }

  /** Requests sent to the API server outside the informers (their list and watch are one each per kind). */
  public long requests() {
    return writes.get() + reads.get();
  }

  private JsonNode tree(GenericKubernetesResource r) {
    try {
      return JSON.readTree(client.getKubernetesSerialization().asJson(r));
    } catch (java.io.IOException e) {
      throw new IllegalStateException("cannot read " + r.getKind() + " " + r.getMetadata().getName(), e);
    }
  }

  @Override
  public void close() {
    informers.values().forEach(l -> l.forEach(SharedIndexInformer::close));
  }
}
