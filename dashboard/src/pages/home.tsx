import { useEffect } from 'preact/hooks';
import { Link, navigate } from '../router';
import { useSession } from '../session';

/** The environments the user may see; with only one, its overview straight away. */
export function HomePage() {
  const { me } = useSession();
  useEffect(() => { if (me.environments.length === 1) navigate(`/env/${me.environments[0].id}`, true); }, [me]);
  if (!me.environments.length) return <p>No environment yet: create one through the API or a manifests folder.</p>;
  return <ul class="plain">{me.environments.map((e) => <li><Link href={`/env/${e.id}`}>{e.name}</Link></li>)}</ul>;
}
