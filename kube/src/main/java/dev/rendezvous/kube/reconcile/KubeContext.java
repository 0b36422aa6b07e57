package dev.rendezvous.kube.reconcile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rendezvous.kube.Kinds;
import dev.rendezvous.kube.KubeStore;
import dev.rendezvous.kube.OwnerIndex;
import dev.rendezvous.kube.WorkQueue;
import dev.rendezvous.kube.service.ServiceApi;
import java.time.Clock;
import java.time.Duration;

/** What every reconciler shares: the CR caches and writes, the service, the owner index, the queue, the clock. */
public record KubeContext(KubeStore store, ServiceApi service, OwnerIndex index, WorkQueue queue, String apiBase,
    Duration missingRetry, Clock clock) {

  static final ObjectMapper JSON = new ObjectMapper();

  /** A work-queue key: {@code Kind/namespace/name}. */
  public static String key(Kinds kind, String namespace, String name) {
    return kind.kind + "/" + (namespace == null ? "" : namespace) + "/" + name;
  }

  /** The owner the service records for a CR (its kube_key): the same shape as a queue key. */
  static String owner(Kinds kind, String namespace, String name) {
    return key(kind, namespace, name);
  }

  /** The id of the object in {@code listed} (the service's clusters or infra-envs) whose kube_key is {@code owner}. */
  java.util.Optional<String> ownedId(JsonNode listed, String owner) {
    for (JsonNode o : listed) {
      if (owner.equals(o.path("kube_key").asText())) {
        return java.util.Optional.of(o.path("id").asText());
      }
    }
    return java.util.Optional.empty();
  }

  static String ns(JsonNode obj) {
    return obj.path("metadata").path("namespace").asText();
  }

  static String name(JsonNode obj) {
    return obj.path("metadata").path("name").asText();
  }

  static boolean deleting(JsonNode obj) {
    return obj.path("metadata").hasNonNull("deletionTimestamp");
  }

  static boolean hasFinalizer(JsonNode obj, String finalizer) {
    for (JsonNode f : obj.path("metadata").path("finalizers")) {
      if (finalizer.equals(f.asText())) {
        return true;
      }
    }
    return false;
  }

  /** Adds or removes a finalizer, conditional on the resourceVersion read (a concurrent edit retries the reconcile). */
  void finalizer(Kinds kind, JsonNode obj, String finalizer, boolean present) {
    if (hasFinalizer(obj, finalizer) == present) {
      return;
    }
    store.update(kind, obj, o -> {
      ArrayNode list = JSON.createArrayNode();
      o.path("metadata").path("finalizers").forEach(f -> {
        if (!finalizer.equals(f.asText())) {
          list.add(f.asText());
        }
      });
      if (present) {
        list.add(finalizer);
      }
      ((ObjectNode) o.path("metadata")).set("finalizers", list);
      return o;
    });
  }

  /** Writes the status when it differs from the object's (so an unchanged situation costs no request). */
  void status(Kinds kind, JsonNode obj, ObjectNode status) {
    JsonNode current = obj.path("status");
    if (current.isObject() && subsetOf(status, current)) {
      return;
    }
    store.updateStatus(kind, obj, o -> {
      o.set("status", status);
      return o;
    });
  }

  /** Every field of {@code a} is in {@code b} with the same value (b may hold more: fields others wrote). */
  static boolean subsetOf(JsonNode a, JsonNode b) {
    if (a.isObject()) {
      if (!b.isObject()) {
        return false;
      }
      var it = a.fields();
      while (it.hasNext()) {
        var e = it.next();
        if (!subsetOf(e.getValue(), b.path(e.getKey()))) {
          return false;
        }
      }
      return true;
    }
    if (a.isArray()) {
      if (!b.isArray() || a.size() != b.size()) {
        return false;
      }
      for (int i = 0; i < a.size(); i++) {
        if (!subsetOf(a.get(i), b.get(i)) || !subsetOf(b.get(i), a.get(i))) {
          return false;
        }
      }
      return true;
    }
    if (a.isNumber() && b.isNumber()) {
      return a.asDouble() == b.asDouble(); // a long we wrote is an int when read back
    }
    return a.equals(b);
  }
}
