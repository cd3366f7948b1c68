import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/load-config.js';
import { GATEWAY_ENV, GATEWAY_NODE_FLAGS } from '../../src/cli/gateway-node-flags.js';
import { renderChart } from '../helpers/render-helm-chart.js';

// No container engine or helm here: these tests read the deployment files the way the tools
// would and check that the pieces agree with each other and with the application.
const ROOT = resolve(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const HEALTH_PATHS = ['/health/live', '/health/ready'];
const CLI_COMMANDS = ['serve', 'migrate'];

interface DockerStage {
  from: string;
  name: string | null;
  instructions: Array<{ op: string; args: string }>;
}

/** Splits a Dockerfile into stages of instructions (continuation lines joined, comments dropped). */
function parseDockerfile(text: string): DockerStage[] {
  const logical = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const stages: DockerStage[] = [];
  for (const line of logical) {
    const [, op, args] = line.match(/^(\w+)\s+(.*)$/) ?? [];
    if (!op) throw new Error(`not a Dockerfile instruction: ${line}`);
    if (op.toUpperCase() === 'FROM') {
      const [, from, name] = args.match(/^(\S+)(?:\s+AS\s+(\S+))?$/i) ?? [];
      stages.push({ from, name: name ?? null, instructions: [] });
    } else {
      stages[stages.length - 1].instructions.push({ op: op.toUpperCase(), args });
    }
  }
  return stages;
}

describe('Dockerfile', () => {
  const stages = parseDockerfile(read('Dockerfile'));
  const runtime = stages[stages.length - 1];
  const ops = (stage: DockerStage, op: string) => stage.instructions.filter((item) => item.op === op);

  it('builds in one stage and runs compiled output from a slim one, as a non-root user', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(stages[0].name).toBe('build');
    // The LTS line .nvmrc names (the one .ci/run tests on), within package.json's engines, which
    // also admit Node 22 (docs/deploy.md "Node versions").
    const lts = read('.nvmrc').trim();
    expect(lts).toBe('24');
    for (const stage of stages) expect(stage.from).toMatch(new RegExp(`^node:${lts}-[-.\\w]*slim$`));
    expect(JSON.parse(read('package.json')).engines.node).toBe('>=22');
    const build = ops(stages[0], 'RUN').map((item) => item.args);
    // No compilers: better-sqlite3 ships its binaries, so nothing is built from C sources.
    expect(build.every((command) => !/apt-get|node-gyp|npm rebuild/.test(command))).toBe(true);
    expect(build.some((command) => command.includes('npm run build'))).toBe(true);
    expect(build.some((command) => command.includes('npm prune --omit=dev'))).toBe(true);
    // The runtime stage installs nothing: no compilers or devDependencies reach the image.
    expect(ops(runtime, 'RUN').every((item) => !/apt-get|npm (ci|install)/.test(item.args))).toBe(true);
    const users = ops(runtime, 'USER');
    expect(users.length).toBeGreaterThan(0);
    expect(users[users.length - 1].args).not.toMatch(/^(root|0)(:|$)/);
  });

  it('copies only what exists, ignores local state, and starts the CLI with a known command', () => {
    for (const stage of stages)
      for (const copy of ops(stage, 'COPY')) {
        if (copy.args.includes('--from=')) continue;
        const sources = copy.args
          .split(/\s+/)
          .filter((part) => !part.startsWith('--'))
          .slice(0, -1);
        for (const source of sources) expect(existsSync(join(ROOT, source)), `COPY ${source}`).toBe(true);
      }
    const ignored = read('.dockerignore').split('\n');
    for (const entry of ['node_modules', 'dist', 'data', '.git']) expect(ignored).toContain(entry);

    const entrypoint = JSON.parse(ops(runtime, 'ENTRYPOINT')[0].args) as string[];
    expect(entrypoint).toEqual(['node', 'dist/cli/main.js']);
    expect(existsSync(join(ROOT, 'src/cli/main.ts'))).toBe(true);
    expect(CLI_COMMANDS).toContain(JSON.parse(ops(runtime, 'CMD')[0].args)[0]);
    expect(ops(runtime, 'HEALTHCHECK')[0].args).toContain('/health/ready');
    expect(ops(runtime, 'EXPOSE')[0].args).toBe('8080');
  });

  it('starts node with the young generation the benchmark and serve --workers use, as npm start does', () => {
    // The value's one home is GATEWAY_NODE_FLAGS; the image and package.json carry its text.
    const flags = GATEWAY_NODE_FLAGS.join(' ');
    expect(ops(runtime, 'ENV').map((item) => item.args)).toContain(`NODE_OPTIONS="${flags}"`);
    const start = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.start;
    expect(start).toBe(`node ${flags} scripts/start.mjs`);
  });

  it('sets the environment the benchmark and serve --workers give a gateway (malloc arenas)', () => {
    // GATEWAY_ENV is read by the C library when the process starts: the image must carry it.
    const env = ops(runtime, 'ENV').map((item) => item.args);
    for (const [name, value] of Object.entries(GATEWAY_ENV)) expect(env).toContain(`${name}=${value}`);
  });
});

describe('compose.yaml', () => {
  const compose = parse(read('compose.yaml'), { merge: true }) as {
    services: Record<string, Record<string, any>>;
  };
  const { services } = compose;
  const gateways = Object.keys(services).filter((name) => /^gateway-\d+$/.test(name));

  it('runs two gateways on PostgreSQL and Redis, migrated once before they serve', () => {
    expect(gateways).toEqual(['gateway-1', 'gateway-2']);
    expect(services.postgres.image).toMatch(/^postgres:/);
    expect(services.redis.image).toMatch(/^redis:/);
    expect(services.migrate.command).toEqual(['migrate']);
    for (const name of gateways) {
      const gateway = services[name];
      expect(gateway.environment.DATABASE_URL).toMatch(/^postgres:\/\/[^@]+@postgres:5432\//);
      expect(gateway.environment.REDIS_URL).toBe('redis://redis:6379');
      expect(gateway.environment.HOST).toBe('0.0.0.0');
      expect(gateway.depends_on.migrate.condition).toBe('service_completed_successfully');
      expect(gateway.depends_on.postgres.condition).toBe('service_healthy');
      expect(gateway.depends_on.redis.condition).toBe('service_healthy');
      expect(gateway.healthcheck.test.join(' ')).toContain('/health/ready');
      // The same image the migrate step ran.
      expect(gateway.image).toBe(services.migrate.image);
    }
    expect(services.migrate.environment.DATABASE_URL).toBe(services['gateway-1'].environment.DATABASE_URL);
  });

  it('runs Redis with append-only persistence on a volume (the settlement stream must survive a restart)', () => {
    const command = (services.redis.command as string[]).join(' ');
    expect(command).toContain('--appendonly yes');
    expect(command).toMatch(/--appendfsync (everysec|always)/);
    expect(command).toContain('--maxmemory-policy noeviction');
    expect(services.redis.volumes).toEqual(['redis-data:/data']);
    expect(Object.keys((compose as unknown as { volumes: Record<string, unknown> }).volumes)).toContain('redis-data');
  });

  it('mounts files that exist, and a config file the gateway accepts', () => {
    for (const service of Object.values(services))
      for (const volume of service.volumes ?? []) {
        const source = String(volume).split(':')[0];
        if (source.startsWith('./')) expect(existsSync(join(ROOT, source)), source).toBe(true);
      }
    const configMount = (services['gateway-1'].volumes as string[]).find((volume) =>
      volume.endsWith(`:${services['gateway-1'].environment.GATEWAY_CONFIG}:ro`),
    );
    expect(configMount).toBeDefined();
    const { config } = loadConfig({ env: {}, text: read(configMount!.split(':')[0]) });
    expect(config.server.publicUrl).toBe('http://127.0.0.1:8080');
  });

  it('balances over every gateway through a proxy that does not buffer streams', () => {
    const nginx = read('deploy/compose/nginx.conf');
    const servers = [...nginx.matchAll(/^\s*server\s+([\w-]+):(\d+)/gm)].map((match) => `${match[1]}:${match[2]}`);
    expect(servers).toEqual(gateways.map((name) => `${name}:${services[name].environment.PORT}`));
    expect(nginx).toMatch(/proxy_buffering off;/);
    expect(nginx).toMatch(/proxy_read_timeout \d+s;/);
    expect(services.proxy.ports).toEqual(['127.0.0.1:8080:8080']);
    expect(nginx).toMatch(/listen 8080;/);
    expect(Object.keys(services.proxy.depends_on).sort()).toEqual(gateways);
  });
});

describe('Helm chart', () => {
  const chartDirectory = join(ROOT, 'deploy/helm/llm-gateway');
  const kinds = (objects: ReturnType<typeof renderChart>['objects']) =>
    objects.map(({ object }) => object.kind as string).sort();
  const find = (objects: ReturnType<typeof renderChart>['objects'], kind: string) =>
    objects.find(({ object }) => object.kind === kind)!.object as Record<string, any>;

  it('renders a Deployment, Service, ConfigMap, Secret, HPA and PodDisruptionBudget that refer to each other', () => {
    const { objects, chart } = renderChart(chartDirectory);
    expect(chart.apiVersion).toBe('v2');
    expect(kinds(objects)).toEqual([
      'ConfigMap',
      'Deployment',
      'HorizontalPodAutoscaler',
      'PodDisruptionBudget',
      'Secret',
      'Service',
    ]);
    const deployment = find(objects, 'Deployment');
    const service = find(objects, 'Service');
    const configMap = find(objects, 'ConfigMap');
    const secret = find(objects, 'Secret');
    const hpa = find(objects, 'HorizontalPodAutoscaler');
    const pdb = find(objects, 'PodDisruptionBudget');
    const pod = deployment.spec.template;
    const container = pod.spec.containers[0];

    // Selectors pick the pods the Deployment makes.
    expect(pod.metadata.labels).toMatchObject(deployment.spec.selector.matchLabels);
    expect(pod.metadata.labels).toMatchObject(service.spec.selector);
    expect(pod.metadata.labels).toMatchObject(pdb.spec.selector.matchLabels);
    expect(hpa.spec.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: deployment.metadata.name });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(pdb.spec.minAvailable + 1);
    // With the HPA on, the Deployment leaves the replica count to it.
    expect(deployment.spec.replicas).toBeUndefined();

    // Ports, probes, config and secrets line up.
    expect(container.ports).toEqual([{ name: 'http', containerPort: 8080, protocol: 'TCP' }]);
    expect(service.spec.ports[0].targetPort).toBe('http');
    expect(container.env).toContainEqual({ name: 'PORT', value: '8080' });
    expect(container.livenessProbe.httpGet).toEqual({ path: '/health/live', port: 'http' });
    expect(container.readinessProbe.httpGet).toEqual({ path: '/health/ready', port: 'http' });
    expect(container.startupProbe.httpGet.path).toBe('/health/live');
    for (const path of [container.livenessProbe, container.readinessProbe].map((probe) => probe.httpGet.path))
      expect(HEALTH_PATHS).toContain(path);
    expect(container.envFrom[0].secretRef.name).toBe(secret.metadata.name);
    const configVolume = pod.spec.volumes.find((volume: any) => volume.configMap);
    expect(configVolume.configMap.name).toBe(configMap.metadata.name);
    const mount = container.volumeMounts.find((item: any) => item.name === configVolume.name);
    const configPath = container.env.find((item: any) => item.name === 'GATEWAY_CONFIG').value;
    expect(configPath).toBe(`${mount.mountPath}/gateway.config.yaml`);
    expect(Object.keys(configMap.data)).toEqual(['gateway.config.yaml']);
    const { config } = loadConfig({ env: {}, text: configMap.data['gateway.config.yaml'] });
    expect(config.server.publicUrl).toBe('https://gateway.example.com');
    expect(secret.stringData.DATABASE_URL).toMatch(/^postgres:\/\//);
    expect(secret.stringData.REDIS_URL).toMatch(/^redis:\/\//);

    // Non-root, and the schema is migrated before the new version serves.
    expect(pod.spec.securityContext.runAsNonRoot).toBe(true);
    expect(pod.spec.securityContext.runAsUser).not.toBe(0);
    expect(container.securityContext.allowPrivilegeEscalation).toBe(false);
    expect(pod.spec.initContainers[0].args).toEqual(['migrate']);
    expect(pod.spec.initContainers[0].image).toBe(container.image);
    expect(CLI_COMMANDS).toContain(container.args[0]);
    // A stopping pod has longer than the gateway's shutdown grace (10 s) to finish streams.
    expect(pod.spec.terminationGracePeriodSeconds).toBeGreaterThan(10);
  });

  it('leaves the HPA and PDB out when they are turned off, and then sets the replica count', () => {
    const { objects } = renderChart(chartDirectory, {
      autoscaling: { enabled: false },
      podDisruptionBudget: { enabled: false },
      replicaCount: 3,
    });
    expect(kinds(objects)).toEqual(['ConfigMap', 'Deployment', 'Secret', 'Service']);
    expect(find(objects, 'Deployment').spec.replicas).toBe(3);
  });

  it('passes plain settings through as quoted environment values', () => {
    const { objects } = renderChart(chartDirectory, { env: { LOG_LEVEL: 'debug', WORKERS: 4 } });
    const env = find(objects, 'Deployment').spec.template.spec.containers[0].env;
    expect(env).toContainEqual({ name: 'LOG_LEVEL', value: 'debug' });
    expect(env).toContainEqual({ name: 'WORKERS', value: '4' });
  });
});
