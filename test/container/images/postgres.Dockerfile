# Stands in for the official postgres image: Debian's PostgreSQL, initialised on first start from
# POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB into /var/lib/postgresql/data, as that image does.
ARG BASE
FROM ${BASE}
RUN apt-get update && apt-get install -y --no-install-recommends postgresql && rm -rf /var/lib/apt/lists/*
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
RUN mkdir -p "$PGDATA" /var/run/postgresql && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql
VOLUME /var/lib/postgresql/data
USER postgres
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres"]
