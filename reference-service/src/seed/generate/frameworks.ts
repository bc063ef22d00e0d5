// Demo security frameworks: controls drawn from ISO/IEC 27001:2022 Annex A, NIST CSF 1.1 and CIS
// Controls v8, with cron frequencies and evidences whose files follow the contract's path rule.

import type { Control, Evidence, SecurityFramework } from '../../records.ts';
import { ORGANIZATIONS, type DemoOrganization } from './organizations.ts';
import { chance, createRng, decimal, int, pick, sample, seedOf, uuidV4, type Rng } from './rng.ts';
import { DAY, DEMO_END, epochSeconds, rfc3339 } from './time.ts';

type EvidenceType = 'document' | 'screenshot' | 'attestation' | 'automated_check';

/** id, title, description, how evidence is supplied */
type ControlSpec = readonly [string, string, string, EvidenceType];

interface Catalogue {
  name: string;
  reference: (controlId: string) => string;
  controls: readonly ControlSpec[];
}

const ISO_27001: Catalogue = {
  name: 'ISO/IEC 27001:2022 Annex A',
  reference: (id) => `ISO/IEC 27001:2022 ${id}`,
  controls: [
    ['A.5.1', 'Policies for information security', 'Information security policy and topic-specific policies are defined, approved by management, published and reviewed at planned intervals.', 'document'],
    ['A.5.2', 'Information security roles and responsibilities', 'Information security roles and responsibilities are defined and allocated according to organizational needs.', 'document'],
    ['A.5.3', 'Segregation of duties', 'Conflicting duties and conflicting areas of responsibility are segregated.', 'attestation'],
    ['A.5.7', 'Threat intelligence', 'Information relating to information security threats is collected and analysed to produce threat intelligence.', 'document'],
    ['A.5.9', 'Inventory of information and other associated assets', 'An inventory of information and other associated assets, including owners, is developed and maintained.', 'automated_check'],
    ['A.5.15', 'Access control', 'Rules to control physical and logical access to information and other associated assets are established and implemented.', 'document'],
    ['A.5.23', 'Information security for use of cloud services', 'Processes for acquisition, use, management and exit from cloud services are established.', 'document'],
    ['A.5.24', 'Information security incident management planning and preparation', 'The incident management process, roles and responsibilities are planned and prepared.', 'attestation'],
    ['A.5.30', 'ICT readiness for business continuity', 'ICT readiness is planned, implemented, maintained and tested based on business continuity objectives.', 'attestation'],
    ['A.6.3', 'Information security awareness, education and training', 'Personnel receive appropriate awareness, education and training and regular updates of policies and procedures.', 'screenshot'],
    ['A.7.4', 'Physical security monitoring', 'Premises are continuously monitored for unauthorized physical access.', 'screenshot'],
    ['A.8.2', 'Privileged access rights', 'The allocation and use of privileged access rights is restricted and managed.', 'automated_check'],
    ['A.8.5', 'Secure authentication', 'Secure authentication technologies and procedures are implemented based on access restrictions.', 'screenshot'],
    ['A.8.7', 'Protection against malware', 'Protection against malware is implemented and supported by appropriate user awareness.', 'automated_check'],
    ['A.8.8', 'Management of technical vulnerabilities', 'Information about technical vulnerabilities is obtained, exposure evaluated and appropriate measures taken.', 'automated_check'],
    ['A.8.13', 'Information backup', 'Backup copies of information, software and systems are maintained and regularly tested.', 'automated_check'],
    ['A.8.15', 'Logging', 'Logs that record activities, exceptions, faults and other relevant events are produced, stored, protected and analysed.', 'automated_check'],
    ['A.8.16', 'Monitoring activities', 'Networks, systems and applications are monitored for anomalous behaviour and appropriate actions taken.', 'screenshot'],
    ['A.8.20', 'Networks security', 'Networks and network devices are secured, managed and controlled to protect information in systems and applications.', 'document'],
    ['A.8.23', 'Web filtering', 'Access to external websites is managed to reduce exposure to malicious content.', 'screenshot'],
    ['A.8.24', 'Use of cryptography', 'Rules for the effective use of cryptography, including key management, are defined and implemented.', 'document'],
    ['A.8.28', 'Secure coding', 'Secure coding principles are applied to software development.', 'attestation'],
  ],
};

const NIST_CSF: Catalogue = {
  name: 'NIST Cybersecurity Framework 1.1',
  reference: (id) => `NIST CSF 1.1 ${id}`,
  controls: [
    ['ID.AM-1', 'Physical devices and systems are inventoried', 'Physical devices and systems within the organization are inventoried.', 'automated_check'],
    ['ID.AM-2', 'Software platforms and applications are inventoried', 'Software platforms and applications within the organization are inventoried.', 'automated_check'],
    ['ID.RA-1', 'Asset vulnerabilities are identified and documented', 'Asset vulnerabilities are identified and documented.', 'document'],
    ['PR.AC-1', 'Identities and credentials are managed', 'Identities and credentials are issued, managed, verified, revoked, and audited for authorized devices, users and processes.', 'automated_check'],
    ['PR.AC-3', 'Remote access is managed', 'Remote access is managed.', 'screenshot'],
    ['PR.AC-4', 'Access permissions are managed with least privilege', 'Access permissions and authorizations are managed, incorporating the principles of least privilege and separation of duties.', 'attestation'],
    ['PR.AT-1', 'All users are informed and trained', 'All users are informed and trained.', 'screenshot'],
    ['PR.DS-1', 'Data-at-rest is protected', 'Data-at-rest is protected.', 'document'],
    ['PR.DS-2', 'Data-in-transit is protected', 'Data-in-transit is protected.', 'automated_check'],
    ['PR.IP-4', 'Backups are conducted, maintained and tested', 'Backups of information are conducted, maintained, and tested.', 'automated_check'],
    ['PR.PT-1', 'Audit and log records are reviewed', 'Audit/log records are determined, documented, implemented, and reviewed in accordance with policy.', 'automated_check'],
    ['DE.AE-3', 'Event data are collected and correlated', 'Event data are collected and correlated from multiple sources and sensors.', 'automated_check'],
    ['DE.CM-1', 'The network is monitored', 'The network is monitored to detect potential cybersecurity events.', 'screenshot'],
    ['DE.CM-4', 'Malicious code is detected', 'Malicious code is detected.', 'automated_check'],
    ['RS.RP-1', 'Response plan is executed', 'Response plan is executed during or after an incident.', 'attestation'],
    ['RC.RP-1', 'Recovery plan is executed', 'Recovery plan is executed during or after a cybersecurity incident.', 'document'],
  ],
};

const CIS_V8: Catalogue = {
  name: 'CIS Critical Security Controls v8',
  reference: (id) => `CIS Controls v8 ${id.slice(4)}`,
  controls: [
    ['CIS-1.1', 'Establish and maintain detailed enterprise asset inventory', 'Maintain an accurate, detailed and up-to-date inventory of all enterprise assets with the potential to store or process data.', 'automated_check'],
    ['CIS-2.1', 'Establish and maintain a software inventory', 'Maintain a detailed inventory of all licensed software installed on enterprise assets.', 'automated_check'],
    ['CIS-3.3', 'Configure data access control lists', 'Configure data access control lists based on a user’s need to know.', 'screenshot'],
    ['CIS-4.1', 'Establish and maintain a secure configuration process', 'Maintain a secure configuration process for enterprise assets and software, reviewed annually.', 'document'],
    ['CIS-5.2', 'Use unique passwords', 'Use unique passwords for all enterprise assets; MFA accounts need at least 8 characters, others at least 14.', 'attestation'],
    ['CIS-6.3', 'Require MFA for externally-exposed applications', 'Require all externally-exposed enterprise or third-party applications to enforce MFA.', 'screenshot'],
    ['CIS-7.1', 'Establish and maintain a vulnerability management process', 'Maintain a documented vulnerability management process for enterprise assets.', 'document'],
    ['CIS-8.2', 'Collect audit logs', 'Collect audit logs and ensure logging is enabled across enterprise assets.', 'automated_check'],
    ['CIS-9.2', 'Use DNS filtering services', 'Use DNS filtering services on all enterprise assets to block access to known malicious domains.', 'automated_check'],
    ['CIS-10.1', 'Deploy and maintain anti-malware software', 'Deploy and maintain anti-malware software on all enterprise assets.', 'automated_check'],
    ['CIS-11.2', 'Perform automated backups', 'Perform automated backups of in-scope enterprise assets, weekly or more frequently.', 'automated_check'],
    ['CIS-12.2', 'Establish and maintain a secure network architecture', 'Design and maintain a secure network architecture with segmentation, least privilege and availability.', 'document'],
    ['CIS-13.1', 'Centralize security event alerting', 'Centralize security event alerting across enterprise assets for log correlation and analysis.', 'screenshot'],
    ['CIS-14.1', 'Establish and maintain a security awareness program', 'Educate the workforce on how to interact with enterprise assets and data in a secure manner.', 'attestation'],
    ['CIS-16.1', 'Establish and maintain a secure application development process', 'Maintain a secure application development process covering design standards, coding practices and testing.', 'document'],
    ['CIS-17.1', 'Designate personnel to manage incident handling', 'Designate one key person, and at least one backup, to manage the incident handling process.', 'attestation'],
  ],
};

/** Two frameworks per organization, in this order; framework ids follow it (1..6). */
const PLAN: readonly (readonly [orgId: number, catalogue: Catalogue, scope: string])[] = [
  [1, ISO_27001, 'hospital ISMS'],
  [1, NIST_CSF, 'patient portal'],
  [2, CIS_V8, 'IG2 baseline'],
  [2, ISO_27001, 'warehouse operations'],
  [3, NIST_CSF, 'trading platform'],
  [3, CIS_V8, 'branch network'],
];

const FREQUENCIES: Record<EvidenceType, readonly string[]> = {
  automated_check: ['*/15 * * * *', '0 * * * *', '30 2 * * *', '0 */6 * * *', '5 3 * * 1-5'],
  document: ['0 9 1 1,4,7,10 *', '0 10 15 3 *', '0 9 1 * *', '0 9 2-8 1,7 1'],
  screenshot: ['0 9 1 * *', '0 8 * * 1', '0 9-17/4 * * 1-5', '30 7 1,15 * *'],
  attestation: ['0 10 15 3 *', '0 9 1 1,7 *', '0 9 1 */3 *'],
};

const OWNERS = ['Security team', 'IT operations', 'Compliance office', 'Platform engineering', 'Human resources', 'Facilities'];

const EVIDENCE_DETAILS: Record<EvidenceType, readonly ((title: string, n: number) => string)[]> = {
  document: [
    (t) => `Approved revision of the ${t} documentation uploaded after management review.`,
    (t, n) => `Updated procedure for ${t}; ${n} comments from the review board addressed.`,
  ],
  screenshot: [
    (t) => `Screenshot of the production console showing ${t} enforced.`,
    (t, n) => `Dashboard capture for ${t}: ${n} findings open at the time of capture.`,
  ],
  attestation: [
    (t) => `Signed attestation from the control owner confirming ${t} for the review period.`,
    (t, n) => `Quarterly attestation for ${t}; ${n} exceptions documented and accepted.`,
  ],
  automated_check: [
    (t, n) => `Automated check for ${t} passed on ${100 - n}% of in-scope assets.`,
    (t, n) => `Scheduled scan for ${t} completed; ${n} non-compliant assets ticketed.`,
  ],
};

function slug(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .split('-')
    .slice(0, 4)
    .join('-');
}

function fileName(rng: Rng, type: EvidenceType, title: string, day: string, n: number): string {
  const base = slug(title);
  switch (type) {
    case 'document':
      return `${base}-policy-v${int(rng, 1, 4)}.${n === 0 ? 'pdf' : 'docx'}`;
    case 'screenshot':
      return `${base}-${day}-${n + 1}.png`;
    case 'attestation':
      return `${base}-attestation-signed-${day}.pdf`;
    case 'automated_check':
      return `${base}-check-${day}.${n === 0 ? 'json' : 'csv'}`;
  }
}

function evidences(rng: Rng, org: DemoOrganization, frameworkId: number, spec: ControlSpec): Evidence[] {
  const [controlId, title, , type] = spec;
  const count = int(rng, 0, 3);
  const end = epochSeconds(DEMO_END);
  // Evidence is submitted over the half year before the demo's "now", oldest first.
  const instants = Array.from({ length: count }, () => end - int(rng, 1, 180 * DAY)).sort((a, b) => a - b);
  return instants.map((at) => {
    const datetime = rfc3339(at);
    const day = datetime.slice(0, 10);
    const fileCount = int(rng, 1, 3);
    const completed = chance(rng, 0.8) ? 1 : 0;
    const submitter = pick(rng, org.staff);
    return {
      files: Array.from(
        { length: fileCount },
        (_, n) =>
          `/api/v1/documents/organizations/${org.id}/security-frameworks/${frameworkId}/documents/${controlId}/${fileName(rng, type, title, day, n)}`,
      ),
      details: pick(rng, EVIDENCE_DETAILS[type])(title.toLowerCase(), int(rng, 0, 12)),
      datetime,
      completed,
      residual_risk: completed === 1 ? decimal(rng, 0.02, 0.35, 2) : decimal(rng, 0.4, 0.95, 2),
      submitted_by: { user_id: userId(org, submitter.email), user_email: submitter.email },
    };
  });
}

/** A stable UUID per person, so that the same submitter carries the same id everywhere. */
function userId(org: DemoOrganization, email: string): string {
  let h = 0;
  for (let i = 0; i < email.length; i++) h = Math.imul(h ^ email.charCodeAt(i), 0x9e3779b1);
  return uuidV4(createRng(seedOf(0x05e7, org.id, h)));
}

function control(rng: Rng, org: DemoOrganization, frameworkId: number, catalogue: Catalogue, spec: ControlSpec): Control {
  const [id, title, description, evidenceType] = spec;
  const details: Record<string, unknown> = chance(rng, 0.2)
    ? {}
    : { owner: pick(rng, OWNERS), reference: catalogue.reference(id) };
  if (evidenceType === 'automated_check' && chance(rng, 0.5)) details.automated = true;
  return {
    id,
    type: 'control',
    title,
    weight: decimal(rng, 0.5, 3, 1),
    details,
    evidences: evidences(rng, org, frameworkId, spec),
    frequency: pick(rng, FREQUENCIES[evidenceType]),
    description,
    evidence_type: evidenceType,
  };
}

export function generateFrameworks(): { organizationId: number; framework: SecurityFramework }[] {
  return PLAN.map(([orgId, catalogue, scope], index) => {
    const frameworkId = index + 1;
    const org = ORGANIZATIONS[orgId - 1] as DemoOrganization;
    const rng = createRng(seedOf(0xf4a3, frameworkId));
    const specs = sample(rng, catalogue.controls, int(rng, 6, Math.min(15, catalogue.controls.length)));
    return {
      organizationId: orgId,
      framework: {
        id: frameworkId,
        title: `${catalogue.name} (${scope})`,
        security_frameworks: specs.map((spec) => control(rng, org, frameworkId, catalogue, spec)),
      },
    };
  });
}
