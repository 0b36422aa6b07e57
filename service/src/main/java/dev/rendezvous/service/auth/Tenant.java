package dev.rendezvous.service.auth;

/** Who is calling: the tenant whose clusters and infra-envs a request may see and change. */
public record Tenant(String name, boolean admin) {
  public static final String DEFAULT = "default";
}
