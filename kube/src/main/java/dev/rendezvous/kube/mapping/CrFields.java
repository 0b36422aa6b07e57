package dev.rendezvous.kube.mapping;

import java.util.Map;

/** From a REST parameter the service named in an error back to the custom resource field the user wrote. */
final class CrFields {
  private CrFields() {}

  /** {@code restField} may be a path ({@code cluster_networks[0].cidr}); its head is looked up, else {@code spec (…)}. */
  static String of(Map<String, String> fieldOfParam, String spec, String restField) {
    if (restField == null) {
      return spec;
    }
    String head = restField.split("[.\\[]", 2)[0];
    return fieldOfParam.getOrDefault(head, spec + " (" + restField + ")");
  }
}
