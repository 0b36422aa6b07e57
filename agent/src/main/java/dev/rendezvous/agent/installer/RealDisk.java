package dev.rendezvous.agent.installer;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.IntConsumer;

/**
 * The disk of a real host, as upstream's installer drives coreos-installer: the user's installer arguments read
 * ({@link CoreosInstallerArgs}: a bad one fails the installation before a byte is written), the other bootable
 * disks the service names ({@code disks_to_format}) quick-formatted as upstream's installer does (their first sector
 * zeroed, best effort), the host's Ignition fetched ({@code ignition_url}, else upstream's
 * {@code /v2/infra-env/{ie}/hosts/{h}/downloads/ignition}), then on a worker thread the OS image written
 * ({@code --image-file} from this host, else {@code --image-url}, else the service's metal image checked against its
 * sha256) and its boot partition given the Ignition, the kernel arguments and, with {@code --copy-network}, this
 * host's NetworkManager profiles ({@link BootPartition}); without any image, the minimal boot layout.
 */
public final class RealDisk implements Installer.Disk {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RealDisk.class);
  private final ServiceCalls service;
  private final HttpClient http;
  private final Executor blocking;
  private final Path hostRoot;

  private final BootOrder bootOrder;
  private final DiscoveryHost discoveryHost;
  private volatile Thread writer;
  private volatile boolean stopped;
  private volatile InputStream source;

  public RealDisk(ServiceCalls service, HttpClient http, Executor blocking, Path hostRoot) {
    this(service, http, blocking, hostRoot, null, DiscoveryHost.NONE);
  }

  /**
   * {@code hostRoot}: where this host's files are ({@code /} on a host; a test's directory), for
   * {@code --network-dir} and {@code --image-file}. With {@code bootOrder}: after the write, the disk becomes the
   * firmware's first boot entry (null: never). On a {@code discoveryHost} (booted from the discovery image) any disk is
   * written and the machine rebooted after the Rebooting report; elsewhere file-backed and loop disks only, no reboot.
   */
  public RealDisk(ServiceCalls service, HttpClient http, Executor blocking, Path hostRoot, BootOrder bootOrder,
      DiscoveryHost discoveryHost) {
    this.discoveryHost = discoveryHost;
    this.bootOrder = bootOrder;
    this.service = service;
    this.http = http;
    this.blocking = blocking;
    this.hostRoot = hostRoot;
  }

  @Override
  public CompletableFuture<Void> write(InstallRequest r, IntConsumer percent) {
    if (r.bootDevice() == null || r.bootDevice().isBlank()) {
      return CompletableFuture.failedFuture(new IllegalArgumentException("the install request names no boot device"));
    }
    CoreosInstallerArgs args;
    try {
      args = CoreosInstallerArgs.parse(r.installerArgs());
    } catch (IllegalArgumentException e) {
      return CompletableFuture.failedFuture(e);
    }
    Path device = Path.of(r.bootDevice());
    CompletableFuture<byte[]> ignition = r.ignitionUrl() != null && !r.ignitionUrl().isBlank()
        ? service.downloadUrl(r.ignitionUrl())
        : service.download("/infra-env/" + r.infraEnvId() + "/hosts/" + r.hostId() + "/downloads/ignition");
    return ignition.thenAcceptAsync(ign -> {
      writer = Thread.currentThread();
      try {
        if (stopped) {
          throw stoppedError();
        }
        java.util.Map<String, byte[]> network = args.copyNetwork()
            ? BootPartition.networkProfiles(onHost(args.networkDir())) : java.util.Map.of();
        formatOtherDisks(r);
        BootPartition.Contents contents = new BootPartition.Contents(ign, args, network);
        if (args.imageFile() != null) {
          Path file = onHost(args.imageFile());
          try (InputStream in = stoppable(Files.newInputStream(file))) {
            ImageWriter.writeImage(in, Files.size(file), null, device, percent, discoveryHost.live());
          }
          BootPartition.customize(device, contents);
        } else if (args.imageUrl() != null || (r.metalImageUrl() != null && !r.metalImageUrl().isBlank())) {
          // the user's --image-url is theirs to vouch for; the service's image is checked against its sha256
          String url = args.imageUrl() != null ? args.imageUrl() : r.metalImageUrl();
          HttpResponse<InputStream> image = http.send(HttpRequest.newBuilder(URI.create(url)).build(),
              HttpResponse.BodyHandlers.ofInputStream());
          if (image.statusCode() != 200) {
            image.body().close();
            throw new java.io.IOException("GET " + url + " answered " + image.statusCode());
          }
          try (InputStream in = stoppable(image.body())) {
            ImageWriter.writeImage(in, image.headers().firstValueAsLong("Content-Length").orElse(-1),
                args.imageUrl() != null ? null : r.metalImageSha256(), device, percent, discoveryHost.live());
          }
          BootPartition.customize(device, contents);
        } else {
          ImageWriter.writeBootLayout(device, contents, percent, discoveryHost.live());
        }
        // a file or loop device is no boot disk of this machine: its firmware boot entries are never touched for one
        if (bootOrder != null && !Files.isRegularFile(device) && !device.getFileName().toString().startsWith("loop")) {
          bootOrder.set(device);
        }
      } catch (Exception e) {
        throw new java.util.concurrent.CompletionException(e);
      } finally {
        writer = null;
        source = null;
        Thread.interrupted(); // a stop's interrupt must not outlive this write on the pool's thread
      }
    }, blocking);
  }

  @Override
  public boolean reboots() {
    return discoveryHost.live();
  }

  @Override
  public void reboot() throws Exception {
    discoveryHost.reboot();
  }

  /** A path of this host's filesystem, under its root. */
  private Path onHost(String path) {
    return hostRoot.resolve(path.startsWith("/") ? path.substring(1) : path);
  }

  /**
   * Upstream's quick format of the other bootable disks (so the firmware cannot boot an old OS from one of them):
   * their first sector zeroed, best effort, a failure only logged. As everywhere here, a disk that is not a file or
   * a loop device is written only on a machine booted from the discovery image: elsewhere it is skipped, and said so.
   */
  private void formatOtherDisks(InstallRequest r) {
    for (String id : r.disksToFormat() == null ? java.util.List.<String>of() : r.disksToFormat()) {
      Path disk = Path.of(id);
      try {
        if (disk.toRealPath().equals(Path.of(r.bootDevice()).toRealPath())) {
          continue; // the disk about to be written is never "another" disk, whatever name it was listed by
        }
        ImageWriter.checkTarget(disk, discoveryHost.live());
        try (java.nio.channels.FileChannel out = java.nio.channels.FileChannel.open(disk,
            java.nio.file.StandardOpenOption.WRITE)) {
          ImageWriter.writeFully(out, java.nio.ByteBuffer.allocate((int) ImageWriter.SECTOR), 0);
          out.force(true);
        }
        LOG.atInfo().addKeyValue("host_id", r.hostId()).log("formatted " + id + " (its first sector zeroed)");
      } catch (java.io.IOException e) {
        LOG.atWarn().addKeyValue("host_id", r.hostId()).log("could not format " + id + ": " + e.getMessage());
      }
    }
  }

  /**
   * The image as the write reads it, failing once the installation is stopped. An interrupt alone is not enough: the
   * JDK's HTTP body stream swallows one that lands while it waits for the next bytes, and goes on reading.
   */
  private InputStream stoppable(InputStream in) throws java.io.IOException {
    source = in;
    if (stopped) { // a stop before the stream was known here did not close it
      in.close();
      throw stoppedError();
    }
    return new java.io.FilterInputStream(in) {
      @Override
      public int read(byte[] b, int off, int len) throws java.io.IOException {
        java.io.IOException failed = null;
        int n = 0;
        try {
          n = stopped ? 0 : super.read(b, off, len);
        } catch (java.io.IOException e) {
          failed = e;
        }
        // checked after the read too: a stream closed by stop() fails or ends like a short image
        if (stopped) {
          throw stoppedError();
        }
        if (failed != null) {
          throw failed;
        }
        return n;
      }
    };
  }

  private static java.io.InterruptedIOException stoppedError() {
    return new java.io.InterruptedIOException("the installation was stopped");
  }

  /**
   * Breaks off the write: the image's stream is closed (which wakes a read waiting on the network) and the thread
   * interrupted (which closes the disk's channel, an interruptible FileChannel).
   */
  @Override
  public void stop() {
    stopped = true;
    Thread t = writer;
    if (t != null) {
      t.interrupt();
    }
    InputStream in = source;
    if (in != null) {
      try {
        in.close();
      } catch (java.io.IOException | RuntimeException e) {
        LOG.debug("closing the image stream on stop: {}", e.toString());
      }
    }
  }
}
