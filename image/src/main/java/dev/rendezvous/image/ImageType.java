package dev.rendezvous.image;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Optional;

/** Discovery image types, upstream strings. */
public enum ImageType {
  FULL_ISO("full-iso"),
  MINIMAL_ISO("minimal-iso"),
  DISCONNECTED_ISO("disconnected-iso");

  private final String value;

  ImageType(String value) {
    this.value = value;
  }

  @JsonValue
  public String value() {
    return value;
  }

  public static Optional<ImageType> parse(String s) {
    for (ImageType t : values()) {
      if (t.value.equals(s)) {
        return Optional.of(t);
      }
    }
    return Optional.empty();
  }

  @JsonCreator
  static ImageType fromJson(String s) {
    return parse(s).orElseThrow(() -> new IllegalArgumentException("unknown image type " + s));
  }

  @Override
  public String toString() {
    return value;
  }
}
