package dev.rendezvous.agentbased.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Typed reads of one YAML file's tree, each failure a {@link SiteConfigException} naming the file and the field path.
 * Absent and {@code null} fields read as absent (Go's zero values), as openshift-install reads them.
 */
final class YamlDoc {
  /** A key given twice is an error, as in openshift-install's strict unmarshalling, not "the last one wins". */
  static final ObjectMapper YAML = new ObjectMapper(
      YAMLFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build());

  final String file;

  YamlDoc(String file) {
    this.file = file;
  }

  /** The file's root mapping; a syntax error names the line and column. */
  ObjectNode read(Path dir) throws SiteConfigException {
    String text;
    try {
      text = Files.readString(dir.resolve(file));
    } catch (NoSuchFileException e) {
      throw error("", "not found in " + dir);
    } catch (IOException e) {
      throw error("", "cannot be read: " + e.getMessage());
    }
    return parse(text);
  }

  ObjectNode parse(String text) throws SiteConfigException {
    JsonNode root;
    try {
      root = YAML.readTree(text);
    } catch (JsonProcessingException e) {
      throw error("", syntaxProblem(e));
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      throw error("", "is empty");
    }
    if (!(root instanceof ObjectNode o)) {
      throw error("", "must be a YAML mapping of fields");
    }
    return o;
  }

  private static final Pattern MARK = Pattern.compile("line (\\d+), column (\\d+)");

  /**
   * "is not valid YAML (line L, column C): what": the YAML parser's own report without its quoted snippets, at the
   * place it names last (where the problem was found), else where the reader stopped.
   */
  static String syntaxProblem(JsonProcessingException e) {
    String raw = e.getOriginalMessage() == null ? "syntax error" : e.getOriginalMessage();
    List<String> what = new ArrayList<>();
    for (String line : raw.split("\n")) {
      if (!line.isBlank() && !Character.isWhitespace(line.charAt(0))) {
        what.add(line.strip());
      }
    }
    String where = "";
    Matcher m = MARK.matcher(raw);
    while (m.find()) {
      where = " (line " + m.group(1) + ", column " + m.group(2) + ")";
    }
    JsonLocation at = e.getLocation();
    if (where.isEmpty() && at != null && at.getLineNr() > 0) {
      where = " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")";
    }
    return "is not valid YAML" + where + ": " + (what.isEmpty() ? "syntax error" : String.join(": ", what));
  }

  SiteConfigException error(String field, String problem) {
    return new SiteConfigException(file, field, problem);
  }

  static String child(String path, String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  static String index(String path, int i) {
    return path + "[" + i + "]";
  }

  private static JsonNode get(JsonNode parent, String key) {
    JsonNode v = parent == null ? null : parent.get(key);
    return v == null || v.isNull() ? null : v;
  }

  /** A scalar as text, or null when absent. */
  String text(JsonNode parent, String key, String path) throws SiteConfigException {
    JsonNode v = get(parent, key);
    if (v == null) {
      return null;
    }
    if (!v.isValueNode()) {
      throw error(child(path, key), "must be a single value, not a " + (v.isArray() ? "list" : "mapping"));
    }
    return v.asText();
  }

  /** A scalar as text; absent or blank is an error. */
  String requiredText(JsonNode parent, String key, String path) throws SiteConfigException {
    String s = text(parent, key, path);
    if (s == null || s.isBlank()) {
      throw error(child(path, key), "is required");
    }
    return s.strip();
  }

  /** A whole number, or null when absent. */
  Long integer(JsonNode parent, String key, String path) throws SiteConfigException {
    JsonNode v = get(parent, key);
    if (v == null) {
      return null;
    }
    if (v.isTextual() && v.asText().strip().matches("-?\\d+")) {
      throw error(child(path, key), "must be a whole number without quotes, not the text '" + v.asText() + "'");
    }
    if (!v.isIntegralNumber() || !v.canConvertToLong()) {
      throw error(child(path, key), "must be a whole number, not '" + shown(v) + "'");
    }
    return v.asLong();
  }

  Boolean bool(JsonNode parent, String key, String path) throws SiteConfigException {
    JsonNode v = get(parent, key);
    if (v == null) {
      return null;
    }
    if (!v.isBoolean()) {
      throw error(child(path, key), "must be true or false, not '" + shown(v) + "'");
    }
    return v.asBoolean();
  }

  private static String shown(JsonNode v) {
    return v.isValueNode() ? v.asText() : v.isArray() ? "a list" : "a mapping";
  }

  /** A mapping, or a missing node when absent. */
  JsonNode object(JsonNode parent, String key, String path) throws SiteConfigException {
    JsonNode v = get(parent, key);
    if (v == null) {
      return MissingNode.getInstance();
    }
    if (!v.isObject()) {
      throw error(child(path, key), "must be a mapping of fields");
    }
    return v;
  }

  /** A sequence's items, empty when absent. */
  List<JsonNode> list(JsonNode parent, String key, String path) throws SiteConfigException {
    JsonNode v = get(parent, key);
    if (v == null) {
      return List.of();
    }
    if (!v.isArray()) {
      throw error(child(path, key), "must be a list");
    }
    List<JsonNode> out = new ArrayList<>();
    v.forEach(out::add);
    return out;
  }

  /** A sequence of scalars as text. */
  List<String> strings(JsonNode parent, String key, String path) throws SiteConfigException {
    List<JsonNode> items = list(parent, key, path);
    List<String> out = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      JsonNode n = items.get(i);
      if (n == null || n.isNull() || !n.isValueNode() || n.asText().isBlank()) {
        throw error(index(child(path, key), i), "must be a non-empty single value");
      }
      out.add(n.asText().strip());
    }
    return out;
  }

  /** Adds to {@code ignored} each field of {@code node} not in {@code read}, as a path. */
  static void unread(JsonNode node, String path, Set<String> read, List<String> ignored) {
    if (node == null || !node.isObject()) {
      return;
    }
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (!read.contains(k)) {
        ignored.add(child(path, k));
      }
    }
  }
}
