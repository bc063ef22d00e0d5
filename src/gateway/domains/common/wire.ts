// Wire records more than one domain shares: the organization a record or device belongs to, and
// the statistics of a check (daily web statistics, hourly request buckets).
import { int, nullable, num, shape, str, type Infer } from '../../upstream/check.ts';

export const organizationRef = shape({ id: int, name: str, logo: nullable(str) });
export type WireOrganizationRef = Infer<typeof organizationRef>;

export const webStat = shape({ datetime: str, waf_protection: num, total_managed_requests: num });
export type WireWebStat = Infer<typeof webStat>;

export const chartBucket = shape({ bucket_start: int, bucket_end: int, total_requests: int, malicious_requests: int });
export type WireChartBucket = Infer<typeof chartBucket>;
