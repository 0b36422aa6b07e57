package dev.rendezvous.service;

import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.validation.HardwareRequirements.RoleRequirements;
import dev.rendezvous.service.domain.validation.HardwareRequirements;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The service's settings: API auth mode, request size limit, the URLs it hands out (for agents and
 * ISO downloads), the release catalog file (null = built-in), the brain's settings, and installation's:
 *
 * @param installerBinary what generates the install-config's Ignition files: empty for the built-in generator (not
 *     a real OpenShift payload), a path to {@code openshift-install}, or {@code extract} to take each release's own
 *     binary out of its release image with {@code oc}
 * @param metalImages the OS disk image installs write, per {@code major.minor/arch}
 * @param logsBodyLimitBytes the largest log bundle an upload may carry
 * @param mirrors a disconnected site's mirror registries and their CA (upstream's MIRROR_REGISTRY), or null: carried
 *     into every discovery Ignition (registries.conf, the CA) and install-config (imageDigestSources, trust bundle)
 */
public record ServiceConfig(
    boolean authDisabled, long bodyLimitBytes, String publicUrl, String imagePublicUrl, Path releaseCatalog,
    BrainSettings brain, String installerBinary, Map<String, DomainConfig.MetalImage> metalImages, long logsBodyLimitBytes,
    dev.rendezvous.service.ignition.DiscoveryIgnitionInput.RegistryMirrors mirrors, Ephemeral ephemeral) {

  /**
   * The agent-based installer's settings for the service it runs on a site's rendezvous host (upstream's "ephemeral
   * installer" variables): the infra-env id its ISO was made for ({@code INFRA_ENV_ID}), the rendezvous host's MAC
   * ({@code BOOTSTRAP_HOST_MAC}: that host is a master and the bootstrap) and the cluster credentials made with the
   * ISO ({@code EPHEMERAL_INSTALLER_CLUSTER_TLS_CERTS_OVERRIDE_DIR}). Each null when not given.
   */
  public record Ephemeral(java.util.UUID infraEnvId, String bootstrapHostMac, Path clusterCredentialsDir) {
    public static final Ephemeral NONE = new Ephemeral(null, null, null);
  }

  public ServiceConfig(boolean authDisabled, long bodyLimitBytes, String publicUrl, String imagePublicUrl,
      Path releaseCatalog, BrainSettings brain, String installerBinary, Map<String, DomainConfig.MetalImage> metalImages,
      long logsBodyLimitBytes, dev.rendezvous.service.ignition.DiscoveryIgnitionInput.RegistryMirrors mirrors) {
    this(authDisabled, bodyLimitBytes, publicUrl, imagePublicUrl, releaseCatalog, brain, installerBinary, metalImages,
        logsBodyLimitBytes, mirrors, Ephemeral.NONE);
  }

  public ServiceConfig(boolean authDisabled, long bodyLimitBytes, String publicUrl, String imagePublicUrl,
      Path releaseCatalog, BrainSettings brain, String installerBinary, Map<String, DomainConfig.MetalImage> metalImages,
      long logsBodyLimitBytes) {
    this(authDisabled, bodyLimitBytes, publicUrl, imagePublicUrl, releaseCatalog, brain, installerBinary, metalImages,
        logsBodyLimitBytes, null);
  }

  public ServiceConfig {
    if (bodyLimitBytes < 1024) {
      throw new IllegalArgumentException("body-limit-bytes must be at least 1024, got " + bodyLimitBytes);
    }
    brain = brain == null ? BrainSettings.defaults() : brain;
    ephemeral = ephemeral == null ? Ephemeral.NONE : ephemeral;
    installerBinary = installerBinary == null ? "" : installerBinary;
    metalImages = metalImages == null ? Map.of() : Map.copyOf(metalImages);
    if (logsBodyLimitBytes < bodyLimitBytes) {
      logsBodyLimitBytes = Math.max(bodyLimitBytes, 256L * 1024 * 1024);
    }
  }

  public ServiceConfig(
      boolean authDisabled, long bodyLimitBytes, String publicUrl, String imagePublicUrl, Path releaseCatalog) {
    this(authDisabled, bodyLimitBytes, publicUrl, imagePublicUrl, releaseCatalog, BrainSettings.defaults(), "", Map.of(), 0);
  }

  public ServiceConfig(boolean authDisabled, long bodyLimitBytes, String publicUrl, String imagePublicUrl,
      Path releaseCatalog, BrainSettings brain) {
    this(authDisabled, bodyLimitBytes, publicUrl, imagePublicUrl, releaseCatalog, brain, "", Map.of(), 0);
  }

  /** The domain's configuration: the brain's thresholds and timeouts with where installs get their files. */
  public DomainConfig domainConfig() {
    return brain.domainConfig().withInstallSources(publicUrl, metalImages)
        .withBootstrapHostMac(ephemeral.bootstrapHostMac());
  }

  /**
   * The brain's settings.
   *
   * @param monitorInterval how often the monitor refreshes the owned clusters and hosts (timeouts, due step
   *     pushes); upstream's host monitor runs every 8 s
   * @param minCpuCores when set, the CPU cores every role requires (else upstream's per-role values)
   * @param minRamMib when set, the RAM every role requires
   * @param minDiskGb when set, the installation disk size every role requires
   * @param hostDisconnectionTimeout after how long without a check-in a host is disconnected (upstream 3 min)
   * @param disabledHostValidations host validation ids reported {@code disabled} and never blocking (upstream's
   *     DISABLED_HOST_VALIDATIONS), e.g. container-images-available on a rig with no registry in reach
   * @param requiredImages images hosts must pull before install besides the cluster's release image (MCO,
   *     must-gather)
   * @param batchesInFlight at most this many bus batches handled at once (0: one per brain lane, i.e. per core);
   *     the others gather what arrives meanwhile into larger batches (see {@code docs/brain.md})
   * @param batchMaxWait a batch held back by that bound starts anyway once its first event waited this long
   * @param timeouts the state machines' timeouts a user replaces, by name ({@code DomainTimeouts#byName}: e.g.
   *     {@code host-stage-writing-image-to-disk=10m}; upstream configures the same through its environment)
   * @param agentVersion the version of the agent the service serves, to which hosts' agents of another version are
   *     upgraded (upstream's AGENT_DOCKER_IMAGE with ENABLE_UPGRADE_AGENT); null: agents are not upgraded
   * @param controllerImage the controller image the install step names (upstream's CONTROLLER_IMAGE): the Job the
   *     bootstrap renders into the new cluster runs it; null: upstream's default
   * @param backlogBoundEvents the backlog past which the gateway holds agents' messages ({@code
   *     --pressure-backlog-events}): the brain fetches ahead of it before it pauses a partition; 0: the brain's own
   *     default
   */
  public record BrainSettings(
      Duration monitorInterval, Integer minCpuCores, Long minRamMib, Long minDiskGb, Duration hostDisconnectionTimeout,
      java.util.Set<String> disabledHostValidations, java.util.List<String> requiredImages, int batchesInFlight,
      Duration batchMaxWait, java.util.Map<String, Duration> timeouts, String agentVersion, String controllerImage,
      long backlogBoundEvents) {

    public BrainSettings(Duration monitorInterval, Integer minCpuCores, Long minRamMib, Long minDiskGb,
        Duration hostDisconnectionTimeout, java.util.Set<String> disabledHostValidations,
        java.util.List<String> requiredImages, int batchesInFlight, Duration batchMaxWait,
        java.util.Map<String, Duration> timeouts, String agentVersion) {
      this(monitorInterval, minCpuCores, minRamMib, minDiskGb, hostDisconnectionTimeout, disabledHostValidations,
          requiredImages, batchesInFlight, batchMaxWait, timeouts, agentVersion, null, 0);
    }

    public BrainSettings(Duration monitorInterval, Integer minCpuCores, Long minRamMib, Long minDiskGb,
        Duration hostDisconnectionTimeout) {
      this(monitorInterval, minCpuCores, minRamMib, minDiskGb, hostDisconnectionTimeout, java.util.Set.of(),
          java.util.List.of(), 0, DEFAULT_BATCH_MAX_WAIT, java.util.Map.of(), null);
    }

    public static final Duration DEFAULT_BATCH_MAX_WAIT = Duration.ofMillis(100);

    public BrainSettings {
      disabledHostValidations = disabledHostValidations == null ? java.util.Set.of() : java.util.Set.copyOf(disabledHostValidations);
      requiredImages = requiredImages == null ? java.util.List.of() : java.util.List.copyOf(requiredImages);
      timeouts = timeouts == null ? java.util.Map.of() : java.util.Map.copyOf(timeouts);
      dev.rendezvous.service.domain.DomainTimeouts.defaults().withOverrides(timeouts); // an unknown name: refused now
      for (String id : disabledHostValidations) {
        if (!dev.rendezvous.service.domain.validation.HostValidationId.allIds().contains(id)) {
          throw new IllegalArgumentException("disabled-host-validations: '" + id + "' is not a host validation id");
        }
      }
      if (batchesInFlight < 0) {
        throw new IllegalArgumentException("brain-batches-in-flight must be 0 (one per core) or more, got " + batchesInFlight);
      }
      if (backlogBoundEvents < 0) {
        throw new IllegalArgumentException("pressure-backlog-events must be 0 or more, got " + backlogBoundEvents);
      }
      if (batchMaxWait == null || batchMaxWait.isNegative()) {
        throw new IllegalArgumentException("brain-batch-max-wait-ms must be 0 or more");
      }
      if (monitorInterval.isNegative() || monitorInterval.isZero()) {
        throw new IllegalArgumentException("brain-monitor-interval-ms must be positive, got " + monitorInterval.toMillis());
      }
      if (hostDisconnectionTimeout.isNegative() || hostDisconnectionTimeout.isZero()) {
        throw new IllegalArgumentException("host-disconnection-timeout-seconds must be positive, got "
            + hostDisconnectionTimeout.toSeconds());
      }
      if ((minCpuCores != null && minCpuCores < 1) || (minRamMib != null && minRamMib < 1)
          || (minDiskGb != null && minDiskGb < 1)) {
        throw new IllegalArgumentException("hardware thresholds (hw-min-cpu-cores, hw-min-ram-mib, hw-min-disk-gb) must be positive");
      }
    }

    public static BrainSettings defaults() {
      return new BrainSettings(Duration.ofSeconds(5), null, null, null, Duration.ofMinutes(3));
    }

    /** Upstream's domain configuration with these thresholds and timeouts. */
    public DomainConfig domainConfig() {
      DomainConfig d = DomainConfig.defaults();
      HardwareRequirements hw = d.hardware();
      if (minCpuCores != null || minRamMib != null || minDiskGb != null) {
        hw = new HardwareRequirements(role(hw.master()), role(hw.arbiter()), role(hw.worker()), role(hw.sno()),
            minCpuCores != null ? minCpuCores : hw.snoCpuCoresFrom422(), role(hw.edgeWorker()));
      }
      return d.withHardware(hw)
          .withTimeouts(d.timeouts().withHostDisconnection(hostDisconnectionTimeout).withOverrides(timeouts))
          .withDisabledHostValidations(disabledHostValidations).withRequiredImages(requiredImages)
          .withAgentUpgrade(agentVersion)
          .withControllerImage(controllerImage == null || controllerImage.isBlank() ? d.controllerImage() : controllerImage);
    }

    private RoleRequirements role(RoleRequirements r) {
      return new RoleRequirements(minCpuCores != null ? minCpuCores : r.cpuCores(),
          minRamMib != null ? minRamMib : r.ramMib(), minDiskGb != null ? minDiskGb : r.diskSizeGb(),
          r.installationDiskSpeedThresholdMs(), r.networkLatencyThresholdMs(), r.packetLossPercentage());
    }
  }
}
