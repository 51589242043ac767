# Portico's container image. Build: docker build -t portico .   Run: see docs/deploy.md.
# The base images are arguments so that a build can use a mirror or a pinned digest.
ARG NODE_IMAGE=node:24-bookworm
ARG NODE_SLIM_IMAGE=node:24-bookworm-slim

# Compile TypeScript and precompress the /docs assets (npm run build), with the dev packages.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY tools/precompress.mjs ./tools/
RUN npm run build

# The packages the server runs with, and nothing else; better-sqlite3 is compiled for this image
# when no prebuilt binary can be fetched (the full image has the compiler, the slim one does not).
FROM ${NODE_IMAGE} AS packages
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm rebuild better-sqlite3 \
 && rm -rf node_modules/better-sqlite3/build/Release/obj* node_modules/better-sqlite3/deps \
 && npm cache clean --force

FROM ${NODE_SLIM_IMAGE}
WORKDIR /app
COPY --from=packages /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
# Every setting's default path is under ./data (the database file, the outbox folder): ./data is
# the volume, so that the defaults keep their data across containers.
RUN mkdir /data && chown node:node /data && ln -s /data /app/data \
 && ln -s /app/dist/cli.js /usr/local/bin/portico
USER node
VOLUME /data
ENV HOST=0.0.0.0 PORT=3000
EXPOSE 3000
# /readyz answers 200 once the database answers (and 503 while it does not).
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# dist/cli.js starts node with Portico's V8 flags (its #! line). Run with --init (compose: init: true)
# so that a signal-forwarding init is PID 1; `docker stop` then ends node within its shutdown grace.
ENTRYPOINT ["portico"]
CMD ["serve"]
