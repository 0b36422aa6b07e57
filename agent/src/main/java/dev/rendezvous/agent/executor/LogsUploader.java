package dev.rendezvous.agent.executor;

import java.nio.file.Path;

/** Where the logs step sends its bundle (the gateway's upstream logs API); blocking, for worker threads. */
public interface LogsUploader {
  /** PUT .../hosts/{host_id}/logs-progress {"logs_state": state}. */
  void progress(String infraEnvId, String hostId, String state) throws Exception;

  /** POST /v2/clusters/{cluster_id}/logs?logs_type=host&infra_env_id=&host_id=, multipart field "upfile". */
  void upload(String clusterId, String infraEnvId, String hostId, Path bundle) throws Exception;
}
