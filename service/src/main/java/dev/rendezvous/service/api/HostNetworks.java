package dev.rendezvous.service.api;

import dev.rendezvous.service.domain.Cidr;
import dev.rendezvous.service.repo.HostRepository.HostRow;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Upstream's {@code host_networks} of a cluster: the networks every host with an inventory has an address in (IPv4
 * and IPv6), each with those hosts' ids. The UI offers them as the cluster's machine network. Hosts are added one at
 * a time, so a view streamed a page at a time ({@link HostViewStream}) gathers them as it goes.
 */
final class HostNetworks {
  private final Map<String, Set<String>> byNetwork = new TreeMap<>();
  private int withInventory;

  void add(HostRow h) {
    if (h.inventory() == null || h.inventory().isEmpty()) {
      return;
    }
    withInventory++;
    JsonObject inventory;
    try {
      inventory = new JsonObject(h.inventory());
    } catch (RuntimeException e) {
      return; // as upstream: a host whose inventory does not parse adds no network
    }
    for (Object i : inventory.getJsonArray("interfaces", new JsonArray())) {
      JsonObject nic = (JsonObject) i;
      for (String family : new String[] {"ipv4_addresses", "ipv6_addresses"}) {
        for (Object a : nic.getJsonArray(family, new JsonArray())) {
          Cidr.parse(String.valueOf(a)).ifPresent(cidr -> byNetwork
              .computeIfAbsent(cidr.network().toString(), k -> new TreeSet<>()).add(h.id().toString()));
        }
      }
    }
  }

  JsonArray json() {
    JsonArray out = new JsonArray();
    byNetwork.forEach((cidr, ids) -> {
      if (withInventory > 0 && ids.size() == withInventory) {
        out.add(new JsonObject().put("cidr", cidr).put("host_ids", new JsonArray(List.copyOf(ids))));
      }
    });
    return out;
  }
}
