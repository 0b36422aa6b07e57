package dev.rendezvous.service.ignition;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Ignition spec 3 config merging (parent, then child on top), the way Ignition merges an
 * appended config: objects merge field by field, scalars of the child win, lists of entries with
 * a key (files/directories/links by path, units and dropins by name, users and groups by name,
 * ...) merge entry by entry, other lists are appended without duplicates. A file, directory or
 * link of the child replaces whatever the parent had at that path.
 */
public final class IgnitionMerge {

  /** JSON path of a keyed list → the key field. */
  private static final Map<String, String> KEYS = Map.ofEntries(
      Map.entry("ignition.config.merge", "source"),
      Map.entry("ignition.security.tls.certificateAuthorities", "source"),
      Map.entry("storage.files", "path"),
      Map.entry("storage.directories", "path"),
      Map.entry("storage.links", "path"),
      Map.entry("storage.disks", "device"),
      Map.entry("storage.raid", "name"),
      Map.entry("storage.filesystems", "device"),
      Map.entry("storage.luks", "name"),
      Map.entry("systemd.units", "name"),
      Map.entry("systemd.units.dropins", "name"),
      Map.entry("passwd.users", "name"),
      Map.entry("passwd.groups", "name"));
  private static final List<String> NODE_LISTS = List.of("files", "directories", "links");
  private static final Set<String> APPEND_ONLY = Set.of("storage.files.append");

  private IgnitionMerge() {}

  /** Merges {@code child} into {@code parent} in place. */
  public static void merge(ObjectNode parent, ObjectNode child) {
    JsonNode storage = child.path("storage");
    if (storage.isObject() && parent.path("storage").isObject()) {
      // a path belongs to one kind of node: the child's kind wins
      ObjectNode ps = (ObjectNode) parent.get("storage");
      for (String kind : NODE_LISTS) {
        for (JsonNode n : storage.path(kind)) {
          String path = n.path("path").asText(null);
          for (String other : NODE_LISTS) {
            if (!other.equals(kind) && ps.get(other) instanceof ArrayNode list) {
              removeByKey(list, "path", path);
            }
          }
        }
      }
    }
    mergeObject(parent, child, "");
  }

  private static void mergeObject(ObjectNode parent, ObjectNode child, String path) {
    Iterator<Map.Entry<String, JsonNode>> it = child.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      String name = e.getKey();
      JsonNode value = e.getValue();
      String p = path.isEmpty() ? name : path + "." + name;
      JsonNode existing = parent.get(name);
      if (value.isNull()) {
        continue; // unset in the child: keep the parent's
      }
      if (value.isObject() && existing instanceof ObjectNode eo) {
        mergeObject(eo, (ObjectNode) value, p);
      } else if (value.isArray() && existing instanceof ArrayNode ea) {
        mergeList(ea, (ArrayNode) value, p);
      } else {
        parent.set(name, value.deepCopy());
      }
    }
  }

  private static void mergeList(ArrayNode parent, ArrayNode child, String path) {
    String key = KEYS.get(path);
    for (JsonNode item : child) {
      if (key != null && item.isObject() && item.hasNonNull(key)) {
        ObjectNode match = find(parent, key, item.get(key).asText());
        if (match != null) {
          mergeKeyed(match, (ObjectNode) item, path);
          continue;
        }
        parent.add(item.deepCopy());
      } else if (APPEND_ONLY.contains(path) || item.isContainerNode()) {
        parent.add(item.deepCopy());
      } else if (!contains(parent, item)) {
        parent.add(item.deepCopy());
      }
    }
  }

  /** Entries of a keyed list merge like objects; nested keyed lists use their own path. */
  private static void mergeKeyed(ObjectNode parent, ObjectNode child, String path) {
    mergeObject(parent, child, path);
  }

  private static ObjectNode find(ArrayNode list, String key, String value) {
    for (JsonNode n : list) {
      if (n.isObject() && value.equals(n.path(key).asText(null))) {
        return (ObjectNode) n;
      }
    }
    return null;
  }

  private static void removeByKey(ArrayNode list, String key, String value) {
    for (int i = list.size() - 1; i >= 0; i--) {
      if (value != null && value.equals(list.get(i).path(key).asText(null))) {
        list.remove(i);
      }
    }
  }

  private static boolean contains(ArrayNode list, JsonNode item) {
    for (JsonNode n : list) {
      if (n.equals(item)) {
        return true;
      }
    }
    return false;
  }
}
