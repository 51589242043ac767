# Stands in for the official nginx image: Debian's nginx, reading /etc/nginx/conf.d/*.conf and
# nothing else, in the foreground.
ARG BASE
FROM ${BASE}
RUN apt-get update && apt-get install -y --no-install-recommends nginx-light && rm -rf /var/lib/apt/lists/* \
 && rm -f /etc/nginx/sites-enabled/* \
 && ln -sf /dev/stdout /var/log/nginx/access.log && ln -sf /dev/stderr /var/log/nginx/error.log
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]
