package dev.rendezvous.service.domain.operators;

import dev.rendezvous.service.domain.operators.OlmOperator.Subscription;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The YAML of each operator's manifests, with upstream's kinds, names and fields (its internal/operators/&lt;name&gt;
 * packages): the install manifests ({@code openshift/50_openshift-<name>_*.yaml}: Namespace, OperatorGroup,
 * Subscription and the odd extra) and the custom resource the controller applies once OLM made the operator's CSV.
 */
final class OperatorTemplates {
  static final String LOCAL_BLOCK_CLASS = "localblock-sc";
  static final String LVM_DEVICE_CLASS = "vg1";
  /** The storage classes MCE's AgentServiceConfig claims its volumes from (upstream StorageClassName()). */
  static final String LVM_STORAGE_CLASS = "lvms-" + LVM_DEVICE_CLASS;
  static final String ODF_STORAGE_CLASS = "ocs-storagecluster-cephfs";

  private OperatorTemplates() {}

  /** The files under {@code openshift/}, by file name, in a stable order. */
  static Map<String, String> installManifests(OlmOperator op) {
    Subscription s = op.subscription();
    String prefix = "50_openshift-" + op.wire() + "_";
    Map<String, String> files = new LinkedHashMap<>();
    boolean monitored = op == OlmOperator.LSO || op == OlmOperator.LVM || op == OlmOperator.ODF;
    files.put(prefix + "ns.yaml", namespace(s.namespace(), monitored, op == OlmOperator.NMSTATE));
    files.put(prefix + "operator_group.yaml", operatorGroup(op));
    // upstream's only irregular name
    files.put(prefix + (op == OlmOperator.MCE ? "operator_subscription.yaml" : "subscription.yaml"), subscription(s));
    if (op == OlmOperator.LSO) {
      files.put(prefix + "prometheus-role.yaml", prometheusRole(s.namespace()));
      files.put(prefix + "prometheus-rolebinding.yaml", prometheusRoleBinding(s.namespace()));
    }
    if (op == OlmOperator.CNV) {
      // CNV's descheduler reads the kernel's scheduler statistics on every node
      files.put(prefix + "workers_schedstats.yaml", schedstats("worker"));
      files.put(prefix + "masters_schedstats.yaml", schedstats("master"));
    }
    return files;
  }

  static String namespace(String name, boolean clusterMonitoring, boolean kubernetesFinalizer) {
    StringBuilder b = new StringBuilder("""
        apiVersion: v1
        kind: Namespace
        metadata:
          name: %s
        """.formatted(name));
    if (clusterMonitoring) {
      b.append("  labels:\n    openshift.io/cluster-monitoring: \"true\"\n");
    }
    b.append(kubernetesFinalizer ? "spec:\n  finalizers:\n  - kubernetes\n" : "spec: {}\n");
    return b.toString();
  }

  static String operatorGroup(OlmOperator op) {
    String ns = op.subscription().namespace();
    String name = switch (op) {
      case LSO -> "local-storage";
      case LVM, ODF -> "openshift-storage-operatorgroup";
      case CNV -> "kubevirt-hyperconverged-group";
      case MCE -> "mce";
      case MTV -> "migration";
      case NMSTATE -> "openshift-nmstate";
    };
    String annotations = op == OlmOperator.LSO
        ? "  annotations:\n    olm.providedAPIs: LocalVolume.v1.local.storage.openshift.io\n" : "";
    return """
        apiVersion: operators.coreos.com/v1
        kind: OperatorGroup
        metadata:
          name: %s
          namespace: %s
        %sspec:
          targetNamespaces:
          - %s
        """.formatted(name, ns, annotations, ns);
  }

  static String subscription(Subscription s) {
    String channel = s.channel() == null ? "" : "  channel: " + s.channel() + "\n";
    return """
        apiVersion: operators.coreos.com/v1alpha1
        kind: Subscription
        metadata:
          name: %s
          namespace: %s
        spec:
        %s  installPlanApproval: Automatic
          name: %s
          source: %s
          sourceNamespace: %s
        """.formatted(s.name(), s.namespace(), channel, s.packageName(), Subscription.SOURCE, Subscription.SOURCE_NAMESPACE);
  }

  private static String prometheusRole(String ns) {
    return """
        apiVersion: rbac.authorization.k8s.io/v1
        kind: Role
        metadata:
          name: openshift-local-storage-prometheus-k8s
          namespace: %s
        rules:
        - apiGroups: [""]
          resources: [services, endpoints, pods]
          verbs: [get, list, watch]
        """.formatted(ns);
  }

  private static String prometheusRoleBinding(String ns) {
    return """
        apiVersion: rbac.authorization.k8s.io/v1
        kind: RoleBinding
        metadata:
          name: openshift-local-storage-prometheus-k8s
          namespace: %s
        roleRef:
          apiGroup: rbac.authorization.k8s.io
          kind: Role
          name: openshift-local-storage-prometheus-k8s
        subjects:
        - kind: ServiceAccount
          name: prometheus-k8s
          namespace: openshift-monitoring
        """.formatted(ns);
  }

  private static String schedstats(String role) {
    return """
        apiVersion: machineconfiguration.openshift.io/v1
        kind: MachineConfig
        metadata:
          name: 50-%ss-enable-schedstats
          labels:
            machineconfiguration.openshift.io/role: %s
        spec:
          kernelArguments:
          - schedstats=enable
        """.formatted(role, role);
  }

  // ---- custom resources, applied by the controller --------------------------------------------------------------

  static String localVolumeSet() {
    return """
        apiVersion: local.storage.openshift.io/v1alpha1
        kind: LocalVolumeSet
        metadata:
          name: local-disks
          namespace: %s
        spec:
          storageClassName: %s
          volumeMode: Block
          deviceInclusionSpec:
            deviceTypes: [disk]
        """.formatted(OlmOperator.LSO.subscription().namespace(), LOCAL_BLOCK_CLASS);
  }

  static String lvmCluster() {
    return """
        apiVersion: lvm.topolvm.io/v1alpha1
        kind: LVMCluster
        metadata:
          name: lvmcluster-sample
          namespace: %s
        spec:
          storage:
            deviceClasses:
            - name: %s
              thinPoolConfig:
                name: thin-pool-1
                sizePercent: 90
                overprovisionRatio: 10
        """.formatted(OlmOperator.LVM.subscription().namespace(), LVM_DEVICE_CLASS);
  }

  /** Before 4.19 the ODF console still wants the StorageSystem wrapping the StorageCluster. */
  static String storageSystem() {
    String ns = OlmOperator.ODF.subscription().namespace();
    return """
        apiVersion: odf.openshift.io/v1alpha1
        kind: StorageSystem
        metadata:
          name: ocs-storagecluster-storagesystem
          namespace: %s
        spec:
          kind: storagecluster.ocs.openshift.io/v1
          name: ocs-storagecluster
          namespace: %s
        """.formatted(ns, ns);
  }

  /**
   * One device set of {@code disks} local block volumes on the nodes labelled worker (in compact mode the masters
   * carry that label too); compact mode also trims the metadata and object gateway daemons and the OSDs, as
   * upstream's minimal deployment does.
   */
  static String storageCluster(boolean compact, long disks) {
    String daemons = !compact ? "" : """
          resources:
            mds:
              limits: {cpu: "3", memory: 8Gi}
              requests: {cpu: "1", memory: 8Gi}
            rgw:
              limits: {cpu: "2", memory: 4Gi}
              requests: {cpu: "1", memory: 4Gi}
        """;
    String osd = !compact ? "" : """
            resources:
              limits: {cpu: "2", memory: 5Gi}
              requests: {cpu: "1", memory: 5Gi}
        """;
    return """
        apiVersion: ocs.openshift.io/v1
        kind: StorageCluster
        metadata:
          name: ocs-storagecluster
          namespace: %s
        spec:
          labelSelector:
            matchExpressions:
            - {key: node-role.kubernetes.io/worker, operator: In, values: [""]}
          manageNodes: false
          flexibleScaling: true
          monDataDirHostPath: /var/lib/rook
        %s  storageDeviceSets:
          - name: ocs-deviceset
            count: %d
            replica: 1
            portable: false
            dataPVCTemplate:
              spec:
                accessModes: [ReadWriteOnce]
                resources:
                  requests: {storage: "1"}
                storageClassName: %s
                volumeMode: Block
            placement:
        %s    preparePlacement:
        %s%s""".formatted(OlmOperator.ODF.subscription().namespace(), daemons, disks, LOCAL_BLOCK_CLASS,
        osdPlacement("rook-ceph-osd"), osdPlacement("rook-ceph-osd-prepare"), osd);
  }

  /** On worker-labelled nodes, preferably one pod of {@code app} per host. */
  private static String osdPlacement(String app) {
    return """
              nodeAffinity:
                requiredDuringSchedulingIgnoredDuringExecution:
                  nodeSelectorTerms:
                  - matchExpressions:
                    - {key: node-role.kubernetes.io/worker, operator: Exists}
              podAntiAffinity:
                preferredDuringSchedulingIgnoredDuringExecution:
                - weight: 100
                  podAffinityTerm:
                    topologyKey: kubernetes.io/hostname
                    labelSelector:
                      matchExpressions:
                      - {key: app, operator: In, values: [%s]}
        """.formatted(app);
  }

  static String hyperConverged() {
    return """
        apiVersion: hco.kubevirt.io/v1beta1
        kind: HyperConverged
        metadata:
          name: kubevirt-hyperconverged
          namespace: %s
        spec:
          BareMetalPlatform: true
        """.formatted(OlmOperator.CNV.subscription().namespace());
  }

  static String multiClusterEngine() {
    return """
        apiVersion: multicluster.openshift.io/v1
        kind: MultiClusterEngine
        metadata:
          name: mce
        spec:
          targetNamespace: %s
        """.formatted(OlmOperator.MCE.subscription().namespace());
  }

  /** The assisted service MCE runs, its volumes on the cluster's storage operator (upstream's sizes). */
  static String agentServiceConfig(String storageClass) {
    return """
        apiVersion: agent-install.openshift.io/v1beta1
        kind: AgentServiceConfig
        metadata:
          name: agent
        spec:
          databaseStorage: %s
          filesystemStorage: %s
          imageStorage: %s
        """.formatted(claim(storageClass, "10Gi"), claim(storageClass, "10Gi"), claim(storageClass, "50Gi"));
  }

  private static String claim(String storageClass, String size) {
    return "{storageClassName: " + storageClass + ", accessModes: [ReadWriteOnce], resources: {requests: {storage: "
        + size + "}}}";
  }

  static String forkliftController() {
    return """
        apiVersion: forklift.konveyor.io/v1beta1
        kind: ForkliftController
        metadata:
          name: forklift-controller
          namespace: %s
        spec:
          olm_managed: true
        """.formatted(OlmOperator.MTV.subscription().namespace());
  }

  static String nmState() {
    return """
        apiVersion: nmstate.io/v1
        kind: NMState
        metadata:
          name: nmstate
        """;
  }
}
