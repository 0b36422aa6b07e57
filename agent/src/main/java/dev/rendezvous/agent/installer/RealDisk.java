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
 * The disk of a real host: the host's Ignition from the service ({@code ignition_url}, else upstream's
 * {@code /v2/infra-env/{ie}/hosts/{h}/downloads/ignition}), then {@link ImageWriter} on a worker thread: the metal
 * image when the service names one, else the minimal boot layout.
 */
public final class RealDisk implements Installer.Disk {
  private final ServiceCalls service;
  private final HttpClient http;
  private final Executor blocking;
  private final String kernelArgs;

  private final BootOrder bootOrder;
  private volatile Thread writer;
  private volatile boolean stopped;

  public RealDisk(ServiceCalls service, HttpClient http, Executor blocking, String kernelArgs) {
    this(service, http, blocking, kernelArgs, null);
  }

  /** With {@code bootOrder}: after the write, the disk becomes the firmware's first boot entry (null: never). */
  public RealDisk(ServiceCalls service, HttpClient http, Executor blocking, String kernelArgs, BootOrder bootOrder) {
    this.bootOrder = bootOrder;
    this.service = service;
    this.http = http;
    this.blocking = blocking;
    this.kernelArgs = kernelArgs;
  }

  @Override
  public CompletableFuture<Void> write(InstallRequest r, IntConsumer percent) {
    if (r.bootDevice() == null || r.bootDevice().isBlank()) {
      return CompletableFuture.failedFuture(new IllegalArgumentException("the install request names no boot device"));
    }
    Path device = Path.of(r.bootDevice());
    CompletableFuture<byte[]> ignition = r.ignitionUrl() != null && !r.ignitionUrl().isBlank()
        ? service.downloadUrl(r.ignitionUrl())
        : service.download("/infra-env/" + r.infraEnvId() + "/hosts/" + r.hostId() + "/downloads/ignition");
    return ignition.thenAcceptAsync(ign -> {
      writer = Thread.currentThread();
      try {
        if (stopped) {
          throw new java.io.InterruptedIOException("the installation was stopped");
        }
        if (r.metalImageUrl() != null && !r.metalImageUrl().isBlank()) {
          HttpResponse<InputStream> image = http.send(HttpRequest.newBuilder(URI.create(r.metalImageUrl())).build(),
              HttpResponse.BodyHandlers.ofInputStream());
          if (image.statusCode() != 200) {
            throw new java.io.IOException("GET " + r.metalImageUrl() + " answered " + image.statusCode());
          }
          try (InputStream in = image.body()) {
            ImageWriter.writeImage(in, image.headers().firstValueAsLong("Content-Length").orElse(-1), r.metalImageSha256(),
                device, percent);
          }
          ImageWriter.addIgnition(device, ign, kernelArgs);
        } else {
          ImageWriter.writeBootLayout(device, ign, kernelArgs, percent);
        }
        // a file or loop device is no boot disk of this machine: its firmware boot entries are never touched for one
        if (bootOrder != null && !Files.isRegularFile(device) && !device.getFileName().toString().startsWith("loop")) {
          bootOrder.set(device);
        }
      } catch (Exception e) {
        throw new java.util.concurrent.CompletionException(e);
      } finally {
        writer = null;
        Thread.interrupted(); // a stop's interrupt must not outlive this write on the pool's thread
      }
    }, blocking);
  }

  /** Breaks off the write: interrupting the thread closes the disk's channel (an interruptible FileChannel). */
  @Override
  public void stop() {
    stopped = true;
    Thread t = writer;
    if (t != null) {
      t.interrupt();
    }
  }
}
