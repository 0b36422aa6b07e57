package dev.rendezvous.image;

import java.util.Optional;

/** A catalog entry made ready: the full ISO and, when it could be built, the minimal ISO template. */
public record BaseImage(OsImage entry, BaseImageFile full, Optional<BaseImageFile> minimal) {}
