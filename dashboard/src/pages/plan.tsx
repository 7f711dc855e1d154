import { PlanProgress } from '../components/plan-progress';

export function PlanPage({ params }: { params: Record<string, string> }) {
  return <PlanProgress key={params.planId} planId={params.planId} />;
}
