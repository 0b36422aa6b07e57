package dev.rendezvous.tls;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.DelegatingSslContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.vertx.core.net.JdkSSLEngineOptions;
import io.vertx.core.spi.tls.SslContextFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;

/**
 * The JDK TLS engine, with one difference: a client that speaks plain HTTP to a TLS port (an {@code http://} URL
 * by mistake) gets a readable 400 in upstream's error shape telling it to use https, instead of a connection closed
 * without a word. The first byte tells: a TLS connection opens with a handshake record (22), an HTTP request with
 * the letters of its method. Nothing of the request is read further.
 */
public final class PlainHttpAnswer extends JdkSSLEngineOptions {
  static final String BODY = "{\"code\":\"400\",\"href\":\"\",\"id\":400,\"kind\":\"Error\",\"reason\":"
      + "\"this port speaks HTTPS: plain HTTP was sent to it; use an https:// URL (and trust the service's CA, "
      + "ca.pem in the data directory's tls folder when it made its own)\"}";

  public PlainHttpAnswer() {}

  private PlainHttpAnswer(PlainHttpAnswer other) {
    super(other);
  }

  @Override
  public PlainHttpAnswer copy() {
    return new PlainHttpAnswer(this);
  }

  @Override
  public SslContextFactory sslContextFactory() {
    SslContextFactory jdk = super.sslContextFactory();
    return new SslContextFactory() {
      private boolean forClient;

      @Override
      public SslContextFactory useAlpn(boolean useAlpn) {
        jdk.useAlpn(useAlpn);
        return this;
      }

      @Override
      public SslContextFactory clientAuth(ClientAuth clientAuth) {
        jdk.clientAuth(clientAuth);
        return this;
      }

      @Override
      public SslContextFactory forClient(boolean forClient) {
        this.forClient = forClient;
        jdk.forClient(forClient);
        return this;
      }

      @Override
      public SslContextFactory keyMananagerFactory(KeyManagerFactory kmf) {
        jdk.keyMananagerFactory(kmf);
        return this;
      }

      @Override
      public SslContextFactory trustManagerFactory(TrustManagerFactory tmf) {
        jdk.trustManagerFactory(tmf);
        return this;
      }

      @Override
      public SslContextFactory enabledCipherSuites(Set<String> suites) {
        jdk.enabledCipherSuites(suites);
        return this;
      }

      @Override
      public SslContextFactory applicationProtocols(List<String> protocols) {
        jdk.applicationProtocols(protocols);
        return this;
      }

      @Override
      public SslContextFactory serverName(String name) {
        jdk.serverName(name);
        return this;
      }

      @Override
      public SslContext create() throws SSLException {
        SslContext context = jdk.create();
        return forClient ? context : new AnsweringContext(context);
      }
    };
  }

  /** Server contexts whose handlers answer plain HTTP. */
  private static final class AnsweringContext extends DelegatingSslContext {
    AnsweringContext(SslContext context) {
      super(context);
    }

    @Override
    protected void initEngine(SSLEngine engine) {
    }

    @Override
    protected SslHandler newHandler(ByteBufAllocator alloc, boolean startTls, Executor executor) {
      return new AnsweringHandler(newEngine(alloc), startTls, executor);
    }

    @Override
    protected SslHandler newHandler(ByteBufAllocator alloc, String peerHost, int peerPort, boolean startTls,
        Executor executor) {
      return new AnsweringHandler(newEngine(alloc, peerHost, peerPort), startTls, executor);
    }
  }

  private static final class AnsweringHandler extends SslHandler {
    private boolean looked;
    private boolean answered;

    AnsweringHandler(SSLEngine engine, boolean startTls, Executor executor) {
      super(engine, startTls, executor);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws SSLException {
      if (answered) {
        in.skipBytes(in.readableBytes()); // the rest of the plain request, until the close
        return;
      }
      if (!looked && in.isReadable()) {
        looked = true;
        byte first = in.getByte(in.readerIndex());
        if (first >= 'A' && first <= 'Z') {
          answered = true;
          in.skipBytes(in.readableBytes());
          byte[] body = BODY.getBytes(StandardCharsets.UTF_8);
          String head = "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nConnection: close\r\n"
              + "Content-Length: " + body.length + "\r\n\r\n";
          // written from this handler's own context: it goes out as it is, not through the TLS engine
          ctx.writeAndFlush(Unpooled.wrappedBuffer(head.getBytes(StandardCharsets.US_ASCII), body))
              .addListener(ChannelFutureListener.CLOSE);
          return;
        }
      }
      super.decode(ctx, in, out);
    }
  }
}
