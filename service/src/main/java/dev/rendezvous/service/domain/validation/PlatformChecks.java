package dev.rendezvous.service.domain.validation;

import static dev.rendezvous.service.domain.validation.ValidationStatus.ERROR;
import static dev.rendezvous.service.domain.validation.ValidationStatus.FAILURE;
import static dev.rendezvous.service.domain.validation.ValidationStatus.PENDING;
import static dev.rendezvous.service.domain.validation.ValidationStatus.SUCCESS;
import static dev.rendezvous.service.domain.validation.ValidationStatus.SUCCESS_SUPPRESS_OUTPUT;

import dev.rendezvous.service.domain.host.DiskEligibility;
import dev.rendezvous.service.domain.host.Inventory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Host validations on the (virtualisation) platform the host runs on: compatibility with the cluster's
 * platform, platform network settings and vSphere disk UUIDs. Split out of {@link HostValidator}.
 */
final class PlatformChecks {

  private PlatformChecks() {}

  static CheckOutcome platformCompatible(HostCheckContext c) {
    if (c.unbound()) {
      return new CheckOutcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    String platform = c.cluster().platformType();
    if (c.cluster().day2()) {
      return new CheckOutcome(SUCCESS, "Host is compatible with cluster platform " + platform);
    }
    if (c.inventory() == null || platform.isEmpty()) {
      return new CheckOutcome(PENDING, "Missing inventory or platform isn't set");
    }
    List<String> supported = supportedPlatforms(c.inventory());
    if (supported.contains(platform)) {
      return new CheckOutcome(SUCCESS, "Host is compatible with cluster platform " + platform);
    }
    return new CheckOutcome(FAILURE, String.format("Host is not compatible with cluster platform %s; either disable this "
        + "host or choose a compatible cluster platform ([%s])", platform, String.join(" ", supported)));
  }

  static List<String> supportedPlatforms(Inventory inv) {
    List<String> out = new ArrayList<>(List.of("baremetal", "none"));
    String manufacturer = inv.systemVendor() == null ? "" : String.valueOf(inv.systemVendor().manufacturer());
    String product = inv.systemVendor() == null ? "" : String.valueOf(inv.systemVendor().productName());
    if (manufacturer.toLowerCase(Locale.ROOT).contains("vmware")) {
      out.add("vsphere");
    }
    if (manufacturer.toLowerCase(Locale.ROOT).contains("nutanix") || product.equals("AHV")) {
      out.add("nutanix");
    }
    out.add("external");
    return out;
  }

  static CheckOutcome vsphereUuid(HostCheckContext c) {
    if (c.inventory() == null) {
      return new CheckOutcome(PENDING, "Validation pending - no inventory");
    }
    if (c.cluster() == null) {
      return new CheckOutcome(PENDING, "Validation pending - no cluster");
    }
    if (!"vsphere".equals(c.cluster().platformType())) {
      return new CheckOutcome(SUCCESS, "VSphere disk.EnableUUID is enabled for this virtual machine");
    }
    for (Inventory.Disk d : c.inventory().disks()) {
      if (DiskEligibility.validStorageDeviceType(d) && !d.hasUuid()) {
        return new CheckOutcome(FAILURE,
            "VSphere disk.EnableUUID isn't enabled for this virtual machine, it's necessary for disks to be mounted properly");
      }
    }
    return new CheckOutcome(SUCCESS, "VSphere disk.EnableUUID is enabled for this virtual machine");
  }

  static CheckOutcome platformNetworkSettings(HostCheckContext c) {
    if (c.inventory() == null) {
      return new CheckOutcome(PENDING, "Missing inventory");
    }
    if (c.inventory().systemVendor() == null) {
      return new CheckOutcome(ERROR, "Validation error");
    }
    String product = c.inventory().systemVendor().productName();
    if ("OpenStack Compute".equals(product)) {
      if (c.unbound()) {
        return new CheckOutcome(SUCCESS_SUPPRESS_OUTPUT, "");
      }
      if (c.umn()) {
        return new CheckOutcome(SUCCESS, "Platform " + product + " is allowed");
      }
      return new CheckOutcome(FAILURE, "Platform " + product + " is allowed only for Single Node OpenShift or user-managed networking");
    }
    return new CheckOutcome(SUCCESS, "Platform " + product + " is allowed");
  }
}
