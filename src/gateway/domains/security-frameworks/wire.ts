// The security frameworks of the v1 wire (rest-v1.md, operations 1–4): each check declares what
// the gateway accepts of the JSON and, through Infer, the type resolvers see.
import { anyObject, arrayOf, int, nullable, num, shape, str, type Infer } from '../../upstream/check.ts';

export const evidenceSubmitter = shape({ user_id: str, user_email: str });
export type WireEvidenceSubmitter = Infer<typeof evidenceSubmitter>;

export const evidence = shape({
  files: arrayOf(str),
  details: str,
  datetime: str,
  completed: int,
  residual_risk: nullable(num),
  submitted_by: evidenceSubmitter,
});
export type WireEvidence = Infer<typeof evidence>;

export const control = shape({
  id: str,
  type: str,
  title: str,
  weight: num,
  details: anyObject,
  evidences: arrayOf(evidence),
  frequency: str,
  description: str,
  evidence_type: str,
});
export type WireControl = Infer<typeof control>;

export const securityFramework = shape({ id: int, title: str, security_frameworks: arrayOf(control) });
export type WireSecurityFramework = Infer<typeof securityFramework>;

