# The gateway's container image. Two stages: the build (every dependency, esbuild's bundles into
# dist/, then the development dependencies pruned away) and the runtime (node, the bundles, the
# production dependencies and the few files read at run time; no compiler, no sources).
#   docker build --build-arg GIT_COMMIT=$(git rev-parse --short=12 HEAD) -t security-graphql-gateway .
#   docker run -p 4000:4000 -e UPSTREAM_URL=https://v1.example.com security-graphql-gateway
# test/system/container-image.test.ts runs this file's runtime stage as written where no container
# engine is available; docs/deployment.md says how to run it.

FROM node:20.19-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 (the embedded reference service's driver) compiles where no prebuilt binary fits.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY reference-service/package.json reference-service/
RUN npm ci --no-audit --no-fund
COPY . .
ARG GIT_COMMIT
RUN GIT_COMMIT=${GIT_COMMIT} node scripts/build.mjs && npm prune --omit=dev --no-audit --no-fund

FROM node:20.19-bookworm-slim
# The allocator settings: glibc's arenas and mmap threshold tuned for node (docs/deployment.md).
ENV NODE_ENV=production HOST=0.0.0.0 PORT=4000 MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/schema ./schema
COPY --from=build /app/src/gateway/landing/graphiql-start.js /app/src/gateway/landing/graphiql-page.css ./src/gateway/landing/
COPY --from=build /app/src/gateway/mcp/default-operations.graphql ./src/gateway/mcp/
COPY --from=build /app/reference-service/package.json ./reference-service/
COPY --from=build /app/reference-service/dist ./reference-service/dist
COPY --from=build /app/reference-service/src/storage/migrations ./reference-service/src/storage/migrations
# The embedded demo (no UPSTREAM_URL) keeps its database under /app/data, the one writable folder.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 4000
# node itself (the slim image has no curl): 0 when /healthz answers 200.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form, node as PID 1: SIGTERM from the engine reaches the gateway, which drains and exits.
CMD ["node", "dist/main.js"]
