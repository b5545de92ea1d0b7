# batchwise: one image for the server (`serve`) and the workers (`worker`).
# Build: docker build -t batchwise .   Run: see docs/scaleout.md.

# --- build: compile TypeScript, then keep only production dependencies -------------------
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Install scripts are not needed for the CPU solver (webgpu's postinstall fetches Dawn, unused here).
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
# Only src: the image runs the service and the workers, not the benchmarks (bench/ may import
# test helpers, which .dockerignore keeps out of the context; tsconfig.build.json's bench
# include then matches nothing).
COPY src src
COPY proto proto
COPY shaders shaders
RUN npx tsc -p tsconfig.build.json && npm prune --omit=dev --ignore-scripts

# --- runtime: compiled code, production node_modules, non-root ----------------------------
FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY package.json ./
COPY bin bin
COPY proto proto
COPY shaders shaders
# The base image's unprivileged user (uid 1000); nothing in /app is writable by it.
USER node
EXPOSE 50051 9464
# Through the gRPC health service, not a TCP connect: NOT_SERVING during shutdown fails it. No
# address: it reads the server's --port/--host (or BATCHWISE_PORT/HOST) from PID 1, so
# `docker run batchwise serve --port 6000 …` is checked on 6000.
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "dist/src/scaleout/healthcheck.js"]
ENTRYPOINT ["node", "bin/batchwise.js"]
# Plaintext gRPC inside the cluster network; put TLS flags here (or on a mesh) in production.
CMD ["serve", "--host", "0.0.0.0", "--insecure", "--metrics-port", "9464"]
