# syntax=docker/dockerfile:1
# Multi-stage image: the build stage compiles TypeScript; the runtime stage carries only compiled
# JavaScript, production dependencies and the catalog data.
# Node 24 LTS, the line .nvmrc names and CI runs (docs/deploy.md, "Node versions"). No compilers:
# better-sqlite3 13 ships Node-API binaries for linux x64/arm64 (glibc and musl) in its package.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# Scripts off: `prepare` would build before the sources are here.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --ignore-scripts

FROM node:24-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATABASE_URL=sqlite:/data/gateway.db
COPY --from=build --chown=node:node /app/package.json ./package.json
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node catalog ./catalog
COPY --chown=node:node security ./security
RUN mkdir -p /data && chown node:node /data
# The image's own unprivileged user (uid 1000), never root.
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# V8's young generation capped at 2 × 32 MB (Node 24 sizes it from the host's memory, up to
# 2 × 64 MB, and keeps it once grown): docs/deploy.md "Memory". In NODE_OPTIONS rather than on the
# command line, so a deployment can change it (a flag on node's command line would win over it).
ENV NODE_OPTIONS="--max-semi-space-size=32"
# glibc malloc keeps at most 2 arenas instead of up to 8 per core, each holding freed memory
# (10–25 MB less RSS with 1,000 open streams): docs/deploy.md "Memory". Read by the C library at
# start, so it is set here; `serve --workers` passes it to its workers (GATEWAY_ENV).
ENV MALLOC_ARENA_MAX=2
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["serve"]
