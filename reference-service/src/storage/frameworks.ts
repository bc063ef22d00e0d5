import type { Control, Evidence, SecurityFramework } from '../records.ts';
import type { Database } from './database.ts';
import { nowTimestamp, statement } from './database.ts';

/** A control as clients send it: evidence belongs to the service. */
export type ControlInput = Omit<Control, 'evidences'>;

export interface FrameworkInput {
  title: string;
  security_frameworks: ControlInput[];
}

export interface FrameworkRow {
  id: number;
  title: string;
  controls: string;
}

export interface EvidenceRow {
  framework_id: number;
  control_id: string;
  files: string;
  details: string;
  datetime: string;
  completed: number;
  residual_risk: number;
  user_id: string;
  user_email: string;
}

// Stored without evidences, in the wire's field order.
export function storedControls(controls: readonly ControlInput[]): string {
  return JSON.stringify(
    controls.map((c) => ({
      id: c.id,
      type: c.type,
      title: c.title,
      weight: c.weight,
      details: c.details,
      frequency: c.frequency,
      description: c.description,
      evidence_type: c.evidence_type,
    })),
  );
}

function toEvidence(row: EvidenceRow): Evidence {
  return {
    files: JSON.parse(row.files) as string[],
    details: row.details,
    datetime: row.datetime,
    completed: row.completed,
    residual_risk: row.residual_risk,
    submitted_by: { user_id: row.user_id, user_email: row.user_email },
  };
}

/** Frameworks with their evidence attached to controls by control id. */
export function assemble(rows: FrameworkRow[], evidenceRows: EvidenceRow[]): SecurityFramework[] {
  const byControl = new Map<string, Evidence[]>();
  for (const row of evidenceRows) {
    const key = `${row.framework_id}\u0000${row.control_id}`;
    let list = byControl.get(key);
    if (!list) byControl.set(key, (list = []));
    list.push(toEvidence(row));
  }
  return rows.map((row) => ({
    id: row.id,
    title: row.title,
    security_frameworks: (JSON.parse(row.controls) as ControlInput[]).map((c) => ({
      id: c.id,
      type: c.type,
      title: c.title,
      weight: c.weight,
      details: c.details,
      evidences: byControl.get(`${row.id}\u0000${c.id}`) ?? [],
      frequency: c.frequency,
      description: c.description,
      evidence_type: c.evidence_type,
    })),
  }));
}

export const EVIDENCE_COLUMNS =
  'e.framework_id, e.control_id, e.files, e.details, e.datetime, e.completed, e.residual_risk, e.user_id, e.user_email';

/** The organization's frameworks that are not deleted, by id ascending, with their evidence. */
export function listFrameworks(db: Database, organizationId: number): SecurityFramework[] {
  const read = db.transaction(() => {
    const rows = statement<[number], FrameworkRow>(
      db,
      `SELECT id, title, controls FROM security_frameworks
       WHERE organization_id = ? AND deleted_at IS NULL ORDER BY id`,
    ).all(organizationId);
    const evidence = statement<[number], EvidenceRow>(
      db,
      `SELECT ${EVIDENCE_COLUMNS} FROM evidences e
       JOIN security_frameworks f ON f.id = e.framework_id
       WHERE f.organization_id = ? AND f.deleted_at IS NULL
       ORDER BY e.framework_id, e.control_id, e.position`,
    ).all(organizationId);
    return assemble(rows, evidence);
  });
  return read();
}

/** One framework of the organization, unless it is deleted or belongs to another organization. */
export function getFramework(db: Database, organizationId: number, id: number): SecurityFramework | undefined {
  const read = db.transaction(() => {
    const row = statement<[number, number], FrameworkRow>(
      db,
      `SELECT id, title, controls FROM security_frameworks
       WHERE id = ? AND organization_id = ? AND deleted_at IS NULL`,
    ).get(id, organizationId);
    if (!row) return undefined;
    const evidence = statement<[number], EvidenceRow>(
      db,
      `SELECT ${EVIDENCE_COLUMNS} FROM evidences e WHERE e.framework_id = ? ORDER BY e.control_id, e.position`,
    ).all(id);
    return assemble([row], evidence)[0];
  });
  return read();
}

/** Whether the organization has this framework (not deleted): no controls or evidence read. */
export function frameworkExists(db: Database, organizationId: number, id: number): boolean {
  return (
    statement<[number, number], { id: number }>(
      db,
      'SELECT id FROM security_frameworks WHERE id = ? AND organization_id = ? AND deleted_at IS NULL',
    ).get(id, organizationId) !== undefined
  );
}

/** Creates a framework for the organization and returns its id. */
export function createFramework(db: Database, organizationId: number, input: FrameworkInput): number {
  const now = nowTimestamp();
  const result = statement(
    db,
    `INSERT INTO security_frameworks (organization_id, title, controls, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?)`,
  ).run(organizationId, input.title, storedControls(input.security_frameworks), now, now);
  return Number(result.lastInsertRowid);
}

/**
 * Replaces title and controls of a framework and returns it as it now is, with the stored
 * evidence of every control whose id it has; undefined when there is no such live framework.
 */
export function replaceFramework(
  db: Database,
  organizationId: number,
  id: number,
  input: FrameworkInput,
): SecurityFramework | undefined {
  const edit = db.transaction(() => {
    const result = statement(
      db,
      `UPDATE security_frameworks SET title = ?, controls = ?, updated_at = ?
       WHERE id = ? AND organization_id = ? AND deleted_at IS NULL`,
    ).run(input.title, storedControls(input.security_frameworks), nowTimestamp(), id, organizationId);
    return result.changes === 0 ? undefined : getFramework(db, organizationId, id);
  });
  return edit.immediate();
}

/** Marks a framework deleted and returns it as it was; undefined when there is no such live one. */
export function softDeleteFramework(db: Database, organizationId: number, id: number): SecurityFramework | undefined {
  const remove = db.transaction(() => {
    const framework = getFramework(db, organizationId, id);
    if (!framework) return undefined;
    statement(db, 'UPDATE security_frameworks SET deleted_at = ?, updated_at = ? WHERE id = ?').run(
      nowTimestamp(),
      nowTimestamp(),
      id,
    );
    return framework;
  });
  return remove.immediate();
}

/** An evidence as the values of its columns after its place (files … user_email), for SQLite and PostgreSQL alike. */
export function evidenceValues(evidence: Evidence): unknown[] {
  return [
    JSON.stringify(evidence.files),
    evidence.details,
    evidence.datetime,
    evidence.completed,
    evidence.residual_risk,
    evidence.submitted_by.user_id,
    evidence.submitted_by.user_email,
  ];
}

/** Appends an evidence to the control `controlId` of a framework (whether or not it has it now). */
export function addEvidence(db: Database, frameworkId: number, controlId: string, evidence: Evidence): void {
  statement(
    db,
    `INSERT INTO evidences
       (framework_id, control_id, position, files, details, datetime, completed, residual_risk, user_id, user_email)
     VALUES (?, ?, (SELECT coalesce(max(position), -1) + 1 FROM evidences WHERE framework_id = ? AND control_id = ?),
             ?, ?, ?, ?, ?, ?, ?)`,
  ).run(frameworkId, controlId, frameworkId, controlId, ...evidenceValues(evidence));
}

/**
 * Stores a whole framework as seeding has it, evidences included, and returns its id. (The
 * operations never store client-sent evidence; this is for seeding and test setup.)
 */
export function insertFramework(
  db: Database,
  organizationId: number,
  framework: { title: string; security_frameworks: Control[] },
): number {
  const insert = db.transaction(() => {
    const id = createFramework(db, organizationId, framework);
    for (const control of framework.security_frameworks) {
      for (const evidence of control.evidences) addEvidence(db, id, control.id, evidence);
    }
    return id;
  });
  return insert();
}
