package dev.rendezvous.service.validation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/** Pull secrets and SSH public keys: checked for shape, never logged. */
public final class Secrets {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> SSH_TYPES =
      Set.of(
          "ssh-rsa",
          "ssh-ed25519",
          "ssh-dss",
          "ecdsa-sha2-nistp256",
          "ecdsa-sha2-nistp384",
          "ecdsa-sha2-nistp521",
          "sk-ssh-ed25519@openssh.com",
          "sk-ecdsa-sha2-nistp256@openssh.com");

  private Secrets() {}

  /** Returns null when the pull secret is JSON with a non-empty "auths" object of {"auth": base64}. */
  public static String pullSecretProblem(String s) {
    JsonNode root;
    try {
      root = JSON.readTree(s);
    } catch (Exception e) {
      return "must be valid JSON";
    }
    if (root == null || !root.isObject()) {
      return "must be a JSON object";
    }
    JsonNode auths = root.get("auths");
    if (auths == null || !auths.isObject() || auths.isEmpty()) {
      return "must contain a non-empty \"auths\" object";
    }
    Iterator<Map.Entry<String, JsonNode>> it = auths.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode auth = e.getValue().get("auth");
      if (!e.getValue().isObject() || auth == null || !auth.isTextual()) {
        return "auths entry '" + e.getKey() + "' must be an object with an \"auth\" string";
      }
      try {
        String decoded = new String(Base64.getDecoder().decode(auth.asText()), StandardCharsets.UTF_8);
        if (!decoded.contains(":")) {
          return "auths entry '" + e.getKey() + "' auth must be base64 of user:password";
        }
      } catch (IllegalArgumentException bad) {
        return "auths entry '" + e.getKey() + "' auth is not valid base64";
      }
    }
    return null;
  }

  /**
   * One or more OpenSSH public keys, one per line; returns null when every line parses. Empty is "no key" (upstream
   * validates only a key given; its UI sends "" when none was).
   */
  public static String sshKeysProblem(String s) {
    if (s.isEmpty()) {
      return null;
    }
    int count = 0;
    for (String raw : s.split("\n")) {
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      count++;
      String[] parts = line.split("\\s+");
      if (parts.length < 2) {
        return "line " + count + " is not '<type> <base64> [comment]'";
      }
      if (!SSH_TYPES.contains(parts[0])) {
        return "line " + count + " has unsupported key type '" + parts[0] + "'";
      }
      byte[] blob;
      try {
        blob = Base64.getDecoder().decode(parts[1]);
      } catch (IllegalArgumentException e) {
        return "line " + count + " key data is not valid base64";
      }
      // The blob starts with the key type as an SSH string; a mismatch means a corrupt or forged key.
      if (blob.length < 4) {
        return "line " + count + " key data is truncated";
      }
      int len = ByteBuffer.wrap(blob, 0, 4).getInt();
      if (len <= 0 || len > blob.length - 4) {
        return "line " + count + " key data is truncated";
      }
      String inner = new String(blob, 4, len, StandardCharsets.US_ASCII);
      if (!inner.equals(parts[0])) {
        return "line " + count + " key data does not match its type '" + parts[0] + "'";
      }
    }
    return count == 0 ? "must contain at least one key" : null;
  }
}
