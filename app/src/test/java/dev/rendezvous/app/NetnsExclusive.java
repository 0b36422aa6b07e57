package dev.rendezvous.app;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One test class with hosts in network namespaces at a time, across the module's test JVMs (surefire runs two): the
 * namespaces, their bridge and its DHCP server have fixed names (rdv-ns0…, agent/src/test/netns). An exclusive lock
 * on a file, taken before the class's own {@code @BeforeAll} and let go after its {@code @AfterAll}; the kernel lets
 * it go if the JVM dies.
 *
 * <p>Such a class also changes the machine's own interfaces (the bridge, each host's veth and its carrier), and
 * Chromium aborts every request it has in flight, loopback too, with {@code net::ERR_NETWORK_CHANGED} when they
 * change. A class that drives Chromium takes the same lock {@link Shared shared}: Chromium classes run beside each
 * other, never beside a namespace class. So does {@code TlsInstallTest}, whose instance stopped answering beside one.
 *
 * <p>One JVM holds one such lock at a time: a second lock of the same file in the same JVM (a {@code @Nested} class of
 * an annotated one, or JUnit's parallel mode) throws {@link java.nio.channels.OverlappingFileLockException}.
 */
class NetnsExclusive implements BeforeAllCallback, AfterAllCallback {
  private static final Path LOCK_FILE = Path.of(System.getProperty("java.io.tmpdir"), "rdv-netns-tests.lock");
  private static final ExtensionContext.Namespace STORE = ExtensionContext.Namespace.create(NetnsExclusive.class);

  /** For classes that drive Chromium: they run while no namespace class does. */
  static final class Shared extends NetnsExclusive {
    Shared() {
      super(true);
    }
  }

  private final boolean shared;

  NetnsExclusive() {
    this(false);
  }

  private NetnsExclusive(boolean shared) {
    this.shared = shared;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    // a shared lock needs a channel open for reading, an exclusive one for writing
    FileChannel channel = FileChannel.open(LOCK_FILE, StandardOpenOption.CREATE, StandardOpenOption.READ,
        StandardOpenOption.WRITE);
    long asked = System.nanoTime();
    FileLock lock;
    try {
      lock = channel.lock(0, Long.MAX_VALUE, shared); // waits while the other JVM's class holds it
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
    long waited = (System.nanoTime() - asked) / 1_000_000_000L;
    if (waited > 0) {
      System.out.printf("%s waited %d s for the network namespaces (%s)%n", context.getDisplayName(), waited,
          shared ? "to be left alone" : "to be free");
    }
    context.getStore(STORE).put("lock", lock);
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    FileLock lock = context.getStore(STORE).remove("lock", FileLock.class);
    if (lock != null) {
      lock.channel().close(); // lets the lock go too
    }
  }
}
