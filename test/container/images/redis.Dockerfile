# Stands in for the official redis image: Debian's Redis, listening on every address in the
# container's network, as that image does.
ARG BASE
FROM ${BASE}
RUN apt-get update && apt-get install -y --no-install-recommends redis-server && rm -rf /var/lib/apt/lists/*
USER redis
WORKDIR /var/lib/redis
CMD ["redis-server", "--bind", "0.0.0.0", "--protected-mode", "no"]
