package dev.rendezvous.service.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.rendezvous.service.install.ClusterArtifacts;
import dev.rendezvous.service.repo.ClusterFileRepository;
import dev.rendezvous.service.repo.ClusterRepository.ClusterRow;
import dev.rendezvous.service.repo.ManifestRepository;
import dev.rendezvous.service.validation.InvalidInputException;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * A cluster's custom manifests over upstream's API (list, create, update, delete, download), editable until the
 * installation starts; their files are in the cluster's downloads ({@link InstallFilesApi}).
 */
final class ClusterManifestsApi {
  private static final Set<String> FOLDERS = Set.of("manifests", "openshift");
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,253}\\.(yaml|yml|json)");
  private static final int MAX_BYTES = 1024 * 1024;
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private final Pool db;
  private final InstallFilesApi files;

  ClusterManifestsApi(Pool db, InstallFilesApi files) {
    this.db = db;
    this.files = files;
  }

  /** User routes, after the user auth handler. */
  void mount(Router router) {
    String b = ApiViews.BASE;
    router.get(b + "/clusters/:cluster_id/manifests").handler(this::listManifests);
    router.post(b + "/clusters/:cluster_id/manifests").handler(this::createManifest);
    router.patch(b + "/clusters/:cluster_id/manifests").handler(this::updateManifest);
    router.delete(b + "/clusters/:cluster_id/manifests").handler(this::deleteManifest);
    router.get(b + "/clusters/:cluster_id/manifests/files").handler(this::downloadManifest);
  }

  /**
   * The user's manifests; with {@code include_system_generated} also those the system added to the last
   * preparation (the OLM operators'), as upstream's {@code manifest_source: system}. A user file of the same path
   * is listed as the user's.
   */
  private void listManifests(RoutingContext ctx) {
    files.handle(ctx, () -> {
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      boolean system = Requests.queryBool(ctx, "include_system_generated", false);
      return files.cluster(ctx, id).compose(c -> Future.all(ManifestRepository.list(db, id), system
          ? ClusterFileRepository.names(db, id, ClusterArtifacts.SYSTEM_MANIFEST_PREFIX)
          : Future.succeededFuture(List.<String>of()))).map(all -> {
            TreeMap<String, JsonObject> byPath = new TreeMap<>();
            for (String stored : all.<List<String>>resultAt(1)) {
              String[] folderAndName = stored.substring(ClusterArtifacts.SYSTEM_MANIFEST_PREFIX.length()).split("/", 2);
              byPath.put(stored, manifestView(folderAndName[0], folderAndName[1]).put("manifest_source", "system"));
            }
            for (ManifestRepository.Manifest m : all.<List<ManifestRepository.Manifest>>resultAt(0)) {
              byPath.put(ClusterArtifacts.systemManifest(m.folder(), m.fileName()), manifestView(m.folder(), m.fileName()));
            }
            return new JsonArray(new ArrayList<>(byPath.values()));
          });
    });
  }

  private void createManifest(RoutingContext ctx) {
    files.handle(ctx, () -> {
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      JsonObject body = Requests.body(ctx);
      String folder = folder(body.getValue("folder"), "folder");
      String name = fileName(body.getValue("file_name"), "file_name");
      String content = manifestContent(body.getValue("content"), "content");
      return editableCluster(ctx, id).compose(c -> ManifestRepository.put(db, id, folder, name, content))
          .compose(created -> files.reevaluate(id, ctx))
          .map(created -> new InstallFilesApi.Created(manifestView(folder, name)));
    });
  }

  private void updateManifest(RoutingContext ctx) {
    files.handle(ctx, () -> {
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      JsonObject body = Requests.body(ctx);
      String folder = folder(body.getValue("folder"), "folder");
      String name = fileName(body.getValue("file_name"), "file_name");
      String newFolder = body.getValue("updated_folder") == null ? folder : folder(body.getValue("updated_folder"), "updated_folder");
      String newName = body.getValue("updated_file_name") == null ? name : fileName(body.getValue("updated_file_name"), "updated_file_name");
      String newContent = body.getValue("updated_content") == null ? null : manifestContent(body.getValue("updated_content"), "updated_content");
      return editableCluster(ctx, id).compose(c -> dev.rendezvous.service.db.TransientConflict.retrying(db, tx -> ManifestRepository.get(tx, id, folder, name)
          .compose(o -> {
            ManifestRepository.Manifest m = o.orElseThrow(() -> new ApiError(404, "file_name", "manifest " + folder + "/"
                + name + " not found"));
            String content = newContent == null ? m.content() : newContent;
            Future<Boolean> moved = newFolder.equals(folder) && newName.equals(name) ? Future.succeededFuture(true)
                : ManifestRepository.delete(tx, id, folder, name);
            return moved.compose(v -> ManifestRepository.put(tx, id, newFolder, newName, content));
          })))
          .map(v -> manifestView(newFolder, newName));
    });
  }

  private void deleteManifest(RoutingContext ctx) {
    files.handle(ctx, () -> {
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      String folder = folder(ctx.request().getParam("folder", "manifests"), "folder");
      String name = fileName(ctx.request().getParam("file_name"), "file_name");
      return editableCluster(ctx, id).compose(c -> ManifestRepository.delete(db, id, folder, name)).map(found -> {
        if (!found) {
          throw new ApiError(404, "file_name", "manifest " + folder + "/" + name + " not found");
        }
        return null; // 200 without a body, as upstream's V2DeleteClusterManifest
      }).compose(v -> files.reevaluate(id, ctx)).map(v -> null);
    });
  }

  private void downloadManifest(RoutingContext ctx) {
    files.handle(ctx, () -> {
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      String folder = folder(ctx.request().getParam("folder", "manifests"), "folder");
      String name = fileName(ctx.request().getParam("file_name"), "file_name");
      // the user's, else one the system added (upstream serves both from the same store)
      return files.cluster(ctx, id).compose(c -> ManifestRepository.get(db, id, folder, name)).compose(o -> o.isPresent()
          ? Future.succeededFuture(o.get().content().getBytes(StandardCharsets.UTF_8))
          : ClusterFileRepository.get(db, id, ClusterArtifacts.systemManifest(folder, name)).map(f -> f.orElseThrow(
              () -> new ApiError(404, "file_name", "manifest " + folder + "/" + name + " not found")).content()))
          .map(bytes -> new InstallFilesApi.Download(name, bytes));
    });
  }

  static JsonObject manifestView(String folder, String name) {
    return new JsonObject().put("folder", folder).put("file_name", name).put("manifest_source", "user");
  }

  /** custom_manifests.yaml: the user's manifests joined. */
  static byte[] manifestsYaml(List<ManifestRepository.Manifest> ms) {
    StringBuilder b = new StringBuilder();
    for (ManifestRepository.Manifest m : ms) {
      b.append("---\n").append(m.content().strip()).append('\n');
    }
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static String folder(Object v, String field) {
    if (!(v instanceof String s) || !FOLDERS.contains(s)) {
      throw new InvalidInputException(field, "must be one of " + FOLDERS);
    }
    return s;
  }

  private static String fileName(Object v, String field) {
    if (!(v instanceof String s) || !NAME.matcher(s).matches()) {
      throw new InvalidInputException(field, "must be a file name ending in .yaml, .yml or .json (no directories)");
    }
    return s;
  }

  /** Base64 of YAML or JSON that parses (every document of a YAML stream), at most 1 MiB. */
  private static String manifestContent(Object v, String field) {
    if (!(v instanceof String s) || s.isEmpty()) {
      throw new InvalidInputException(field, "is required: the manifest, base64 encoded");
    }
    byte[] raw;
    try {
      raw = Base64.getDecoder().decode(s.strip());
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException(field, "is not valid base64");
    }
    if (raw.length > MAX_BYTES) {
      throw new InvalidInputException(field, "is larger than " + MAX_BYTES + " bytes");
    }
    String text = new String(raw, StandardCharsets.UTF_8);
    try (var parser = YAML.getFactory().createParser(text)) {
      var docs = YAML.readValues(parser, com.fasterxml.jackson.databind.JsonNode.class);
      boolean any = false;
      while (docs.hasNextValue()) {
        var n = docs.nextValue();
        if (n != null && !n.isNull() && !n.isObject()) {
          throw new InvalidInputException(field, "every YAML document must be a mapping");
        }
        any |= n != null && n.isObject();
      }
      if (!any) {
        throw new InvalidInputException(field, "holds no manifest");
      }
    } catch (java.io.IOException | RuntimeException e) {
      if (e instanceof InvalidInputException iie) {
        throw iie;
      }
      throw new InvalidInputException(field, "is not valid YAML or JSON: " + firstLine(e.getMessage()));
    }
    return text;
  }

  private Future<ClusterRow> editableCluster(RoutingContext ctx, UUID id) {
    return files.cluster(ctx, id).map(c -> {
      if (!RestApi.CLUSTER_EDITABLE.contains(c.status())) {
        throw ApiError.conflict("cluster " + id + " is " + c.status() + "; its manifests can change only before installation");
      }
      return c;
    });
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
