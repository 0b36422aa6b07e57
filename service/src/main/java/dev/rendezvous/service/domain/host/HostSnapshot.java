package dev.rendezvous.service.domain.host;

import dev.rendezvous.service.domain.planning.StepOutputs.ApiVipConnectivityResponse;
import dev.rendezvous.service.domain.planning.StepOutputs.DomainResolutionResponse;
import dev.rendezvous.service.domain.planning.StepOutputs.ImageAvailability;
import dev.rendezvous.service.domain.planning.StepOutputs.NtpSource;
import dev.rendezvous.service.domain.planning.StepOutputs.TangConnectivityResponse;
import dev.rendezvous.service.domain.validation.ValidationsInfo;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * What the domain needs to know about one host, already parsed. The repository builds it from its row;
 * the domain never mutates it, it returns the changes to apply ({@link HostTransition}).
 *
 * <p>{@code status == null} means "no row yet" (the upstream "" source state of RegisterHost).
 */
public record HostSnapshot(
    UUID id,
    UUID infraEnvId,
    UUID clusterId,
    boolean day2,
    HostStatus status,
    String statusInfo,
    Instant statusUpdatedAt,
    Instant registeredAt,
    Instant checkedInAt,
    HostRole role,
    HostRole suggestedRole,
    boolean bootstrap,
    Inventory inventory,
    String requestedHostname,
    boolean mediaDisconnected,
    long hostTimestamp,
    HostProgress progress,
    boolean connectionTimedOut,
    boolean stageTimedOut,
    ConnectivityReport connectivity,
    List<NtpSource> ntpSources,
    DomainResolutionResponse domainResolutions,
    List<ImageAvailability> imagesStatus,
    Map<String, DiskSpeed> diskSpeeds,
    String installationDiskId,
    String installationDiskPath,
    ApiVipConnectivityResponse apiVipConnectivity,
    TangConnectivityResponse tangConnectivity,
    Map<String, String> vipVerifications,
    Map<String, Boolean> vipsFree,
    List<String> skipFormattingDiskIds,
    List<String> installerArgs,
    boolean staticNetworking,
    String discoveryAgentVersion,
    String agentUpgradeFailed,
    String reclaimBootArtifacts,
    String logsInfo,
    Instant logsStartedAt,
    Instant logsCollectedAt,
    ValidationsInfo validationsInfo) {

  /** Result of a disk speed test of one disk path (upstream disks_info entry). */
  public record DiskSpeed(boolean tested, int exitCode, long speedMs) {}

  public HostSnapshot {
    id = dev.rendezvous.service.domain.SharedText.id(id);
    infraEnvId = dev.rendezvous.service.domain.SharedText.id(infraEnvId);
    clusterId = dev.rendezvous.service.domain.SharedText.id(clusterId);
    role = role == null ? HostRole.AUTO_ASSIGN : role;
    progress = progress == null ? HostProgress.NONE : progress;
    imagesStatus = imagesStatus == null ? List.of() : List.copyOf(imagesStatus);
    diskSpeeds = diskSpeeds == null ? Map.of() : Map.copyOf(diskSpeeds);
    vipVerifications = vipVerifications == null ? Map.of() : Map.copyOf(vipVerifications);
    vipsFree = vipsFree == null ? Map.of() : Map.copyOf(vipsFree);
    skipFormattingDiskIds = skipFormattingDiskIds == null ? List.of() : List.copyOf(skipFormattingDiskIds);
    installerArgs = installerArgs == null ? List.of() : List.copyOf(installerArgs);
    ntpSources = ntpSources == null ? null : List.copyOf(ntpSources);
    logsInfo = logsInfo == null ? "" : logsInfo;
    statusInfo = statusInfo == null ? "" : statusInfo;
  }

  /** Upstream common.GetEffectiveRole: the suggested role stands in for auto-assign. */
  public HostRole effectiveRole() {
    if (role == HostRole.AUTO_ASSIGN && suggestedRole != null && suggestedRole != HostRole.AUTO_ASSIGN) {
      return suggestedRole;
    }
    return role;
  }

  public boolean unbound() {
    return clusterId == null;
  }

  public HostStage stage() {
    return progress.currentStage();
  }

  /** requested_hostname overrides the inventory's (upstream getRealHostname). */
  public String hostname() {
    if (requestedHostname != null && !requestedHostname.isEmpty()) {
      return requestedHostname;
    }
    return inventory == null || inventory.hostname() == null ? "" : inventory.hostname();
  }

  /** Upstream hostutil.GetHostnameForMsg: the hostname, or the id when none is known. */
  public String nameForMessages() {
    String h = hostname();
    return h.isEmpty() ? id.toString() : h;
  }

  public Optional<Inventory.Disk> installationDisk() {
    if (inventory == null) {
      return Optional.empty();
    }
    if (installationDiskId != null && !installationDiskId.isEmpty()) {
      Optional<Inventory.Disk> d = inventory.diskById(installationDiskId);
      if (d.isPresent()) {
        return d;
      }
    }
    if (installationDiskPath != null && !installationDiskPath.isEmpty()) {
      return inventory.disks().stream().filter(d -> installationDiskPath.equals(d.path())).findFirst();
    }
    return Optional.empty();
  }

  public static Builder builder(UUID id, UUID infraEnvId) {
    return new Builder().id(id).infraEnvId(infraEnvId);
  }

  public Builder toBuilder() {
    Builder b = new Builder();
    b.id = id;
    b.infraEnvId = infraEnvId;
    b.clusterId = clusterId;
    b.day2 = day2;
    b.status = status;
    b.statusInfo = statusInfo;
    b.statusUpdatedAt = statusUpdatedAt;
    b.registeredAt = registeredAt;
    b.checkedInAt = checkedInAt;
    b.role = role;
    b.suggestedRole = suggestedRole;
    b.bootstrap = bootstrap;
    b.inventory = inventory;
    b.requestedHostname = requestedHostname;
    b.mediaDisconnected = mediaDisconnected;
    b.hostTimestamp = hostTimestamp;
    b.progress = progress;
    b.connectionTimedOut = connectionTimedOut;
    b.stageTimedOut = stageTimedOut;
    b.connectivity = connectivity;
    b.ntpSources = ntpSources;
    b.domainResolutions = domainResolutions;
    b.imagesStatus = imagesStatus;
    b.diskSpeeds = diskSpeeds;
    b.installationDiskId = installationDiskId;
    b.installationDiskPath = installationDiskPath;
    b.apiVipConnectivity = apiVipConnectivity;
    b.tangConnectivity = tangConnectivity;
    b.vipVerifications = vipVerifications;
    b.vipsFree = vipsFree;
    b.skipFormattingDiskIds = skipFormattingDiskIds;
    b.installerArgs = installerArgs;
    b.staticNetworking = staticNetworking;
    b.discoveryAgentVersion = discoveryAgentVersion;
    b.agentUpgradeFailed = agentUpgradeFailed;
    b.reclaimBootArtifacts = reclaimBootArtifacts;
    b.logsInfo = logsInfo;
    b.logsStartedAt = logsStartedAt;
    b.logsCollectedAt = logsCollectedAt;
    b.validationsInfo = validationsInfo;
    return b;
  }

  /** Mutable builder; each setter returns the builder. */
  public static final class Builder {
    private UUID id;
    private UUID infraEnvId;
    private UUID clusterId;
    private boolean day2;
    private HostStatus status;
    private String statusInfo;
    private Instant statusUpdatedAt;
    private Instant registeredAt;
    private Instant checkedInAt;
    private HostRole role = HostRole.AUTO_ASSIGN;
    private HostRole suggestedRole;
    private boolean bootstrap;
    private Inventory inventory;
    private String requestedHostname;
    private boolean mediaDisconnected;
    private long hostTimestamp;
    private HostProgress progress = HostProgress.NONE;
    private boolean connectionTimedOut;
    private boolean stageTimedOut;
    private ConnectivityReport connectivity;
    private List<NtpSource> ntpSources;
    private DomainResolutionResponse domainResolutions;
    private List<ImageAvailability> imagesStatus;
    private Map<String, DiskSpeed> diskSpeeds;
    private String installationDiskId;
    private String installationDiskPath;
    private ApiVipConnectivityResponse apiVipConnectivity;
    private TangConnectivityResponse tangConnectivity;
    private Map<String, String> vipVerifications;
    private Map<String, Boolean> vipsFree;
    private List<String> skipFormattingDiskIds;
    private List<String> installerArgs;
    private boolean staticNetworking;
    private String discoveryAgentVersion;
    private String agentUpgradeFailed;
    private String reclaimBootArtifacts;
    private String logsInfo;
    private Instant logsStartedAt;
    private Instant logsCollectedAt;
    private ValidationsInfo validationsInfo;

    public Builder id(UUID v) { id = v; return this; }
    public Builder infraEnvId(UUID v) { infraEnvId = v; return this; }
    public Builder clusterId(UUID v) { clusterId = v; return this; }
    public Builder day2(boolean v) { day2 = v; return this; }
    public Builder status(HostStatus v) { status = v; return this; }
    public Builder statusInfo(String v) { statusInfo = v; return this; }
    public Builder statusUpdatedAt(Instant v) { statusUpdatedAt = v; return this; }
    public Builder registeredAt(Instant v) { registeredAt = v; return this; }
    public Builder checkedInAt(Instant v) { checkedInAt = v; return this; }
    public Builder role(HostRole v) { role = v; return this; }
    public Builder suggestedRole(HostRole v) { suggestedRole = v; return this; }
    public Builder bootstrap(boolean v) { bootstrap = v; return this; }
    public Builder inventory(Inventory v) { inventory = v; return this; }
    public Builder requestedHostname(String v) { requestedHostname = v; return this; }
    public Builder mediaDisconnected(boolean v) { mediaDisconnected = v; return this; }
    public Builder hostTimestamp(long v) { hostTimestamp = v; return this; }
    public Builder progress(HostProgress v) { progress = v; return this; }
    public Builder connectionTimedOut(boolean v) { connectionTimedOut = v; return this; }
    public Builder stageTimedOut(boolean v) { stageTimedOut = v; return this; }
    public Builder connectivity(ConnectivityReport v) { connectivity = v; return this; }
    public Builder ntpSources(List<NtpSource> v) { ntpSources = v; return this; }
    public Builder domainResolutions(DomainResolutionResponse v) { domainResolutions = v; return this; }
    public Builder imagesStatus(List<ImageAvailability> v) { imagesStatus = v; return this; }
    public Builder diskSpeeds(Map<String, DiskSpeed> v) { diskSpeeds = v; return this; }
    public Builder installationDiskId(String v) { installationDiskId = v; return this; }
    public Builder installationDiskPath(String v) { installationDiskPath = v; return this; }
    public Builder apiVipConnectivity(ApiVipConnectivityResponse v) { apiVipConnectivity = v; return this; }
    public Builder tangConnectivity(TangConnectivityResponse v) { tangConnectivity = v; return this; }
    /** VIP to this host's verify-vips verdict (succeeded: nothing answers there; failed: something does). */
    public Builder vipVerifications(Map<String, String> v) { vipVerifications = v; return this; }
    /** VIP to whether this host's last free-addresses sweep of its network found it free. */
    public Builder vipsFree(Map<String, Boolean> v) { vipsFree = v; return this; }
    public Builder skipFormattingDiskIds(List<String> v) { skipFormattingDiskIds = v; return this; }
    public Builder installerArgs(List<String> v) { installerArgs = v; return this; }
    public Builder staticNetworking(boolean v) { staticNetworking = v; return this; }
    public Builder discoveryAgentVersion(String v) { discoveryAgentVersion = dev.rendezvous.service.domain.SharedText.of(v); return this; }
    /** The version an upgrade of this host's agent to failed (not asked again until the agent registers again). */
    public Builder agentUpgradeFailed(String v) { agentUpgradeFailed = v; return this; }
    /** A reclaimed host's download-boot-artifacts request (JSON), signed when the user reclaimed it. */
    public Builder reclaimBootArtifacts(String v) { reclaimBootArtifacts = v; return this; }
    public Builder logsInfo(String v) { logsInfo = v; return this; }
    public Builder logsStartedAt(Instant v) { logsStartedAt = v; return this; }
    public Builder logsCollectedAt(Instant v) { logsCollectedAt = v; return this; }
    public Builder validationsInfo(ValidationsInfo v) { validationsInfo = v; return this; }

    public HostSnapshot build() {
      return new HostSnapshot(id, infraEnvId, clusterId, day2, status, statusInfo, statusUpdatedAt, registeredAt,
          checkedInAt, role, suggestedRole, bootstrap, inventory, requestedHostname, mediaDisconnected,
          hostTimestamp, progress, connectionTimedOut, stageTimedOut, connectivity, ntpSources, domainResolutions,
          imagesStatus, diskSpeeds, installationDiskId, installationDiskPath, apiVipConnectivity, tangConnectivity,
          vipVerifications, vipsFree,
          skipFormattingDiskIds, installerArgs, staticNetworking, discoveryAgentVersion, agentUpgradeFailed,
          reclaimBootArtifacts, logsInfo, logsStartedAt, logsCollectedAt, validationsInfo);
    }
  }
}
