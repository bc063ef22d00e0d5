// A framework's controls in their GraphQL shape, mapped once per list. A framework holds tens of
// controls, each with its evidence: as plain objects the executor reads every field as a property,
// where a resolver per renamed field (evidenceType, residualRisk, submittedBy, userId, userEmail)
// costs it a call, a resolve info and a response path per value.
import type { Control } from '../../generated/resolvers.ts';
import type { ControlIds } from './control-id.ts';
import type { WireSecurityFramework } from './wire.ts';

export function controlsOf(framework: WireSecurityFramework, controlIds: ControlIds): Control[] {
  return framework.security_frameworks.map((control) => ({
    // Unique across all controls: the client-chosen id is unique only within its framework.
    id: controlIds.of(framework.id, control.id),
    controlId: control.id,
    type: control.type,
    title: control.title,
    weight: control.weight,
    details: control.details,
    evidences: control.evidences.map((evidence) => ({
      files: evidence.files,
      details: evidence.details,
      datetime: evidence.datetime,
      completed: evidence.completed,
      residualRisk: evidence.residual_risk,
      submittedBy: { userId: evidence.submitted_by.user_id, userEmail: evidence.submitted_by.user_email },
    })),
    frequency: control.frequency,
    description: control.description,
    evidenceType: control.evidence_type,
  }));
}
