package dev.rendezvous.app;

import org.junit.platform.suite.api.SelectClasses;
import org.junit.platform.suite.api.Suite;

/**
 * The classes that must not run beside each other ({@link NetnsExclusive}: hosts in network namespaces with fixed
 * names, and the Chromium classes, which a change of the machine's interfaces disturbs), one after the other in one
 * test JVM, while the other JVM runs everything else. Run as separate classes, they met each other across the two
 * JVMs and waited for the lock, 31–89 s of a test JVM's time per run.
 *
 * <p>The longest chain of the module (~10 minutes on CI's machine), so it must start first: surefire runs the classes
 * in alphabetical order (app/pom.xml), hence the "A" of the name. The pom excludes the six from the plain run;
 * {@code -Dtest=NetnsInstallTest} still runs one alone.
 */
@Suite
@SelectClasses({AgentBasedInstallTest.class, NetnsInstallTest.class, NetnsEndToEndTest.class,
    NetnsStaticNetworkTest.class, UiBrowserTest.class, ObservabilityTest.class})
class AHostNetworkTests {}
