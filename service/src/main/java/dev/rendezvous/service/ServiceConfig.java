package dev.rendezvous.service;

import java.nio.file.Path;

/**
 * The service's settings: API auth mode, request size limit, the URLs it hands out (for agents and
 * ISO downloads), and the release catalog file (null = built-in).
 */
public record ServiceConfig(
    boolean authDisabled, long bodyLimitBytes, String publicUrl, String imagePublicUrl, Path releaseCatalog) {

  public ServiceConfig {
    if (bodyLimitBytes < 1024) {
      throw new IllegalArgumentException("body-limit-bytes must be at least 1024, got " + bodyLimitBytes);
    }
  }
}
