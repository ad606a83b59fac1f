/**
 * What `krtt ipam` and `krtt ipam init` do before they run: the options from the flags and the
 * cluster to talk to. A bad value or a missing cluster is refused in one line naming it (exit
 * 2); `--dry-run` prints the options and ends the command, as upstream's does.
 *
 * @module
 */
import { resolveKubeconfig } from "../manager/kubeconfig.ts"

/** The options and the cluster, or `undefined` when the command has ended. */
export const prepareIpamCommand = <O>(
  command: string,
  parse: () => { readonly options: O; readonly kubeconfig: string | undefined },
  dryRun: boolean,
):
  | { readonly options: O; readonly resolved: NonNullable<ReturnType<typeof resolveKubeconfig>> }
  | undefined => {
  let options: O
  let resolved: ReturnType<typeof resolveKubeconfig>
  try {
    const parsed = parse()
    options = parsed.options
    resolved = resolveKubeconfig(parsed.kubeconfig)
  } catch (e) {
    process.stderr.write(`${command}: ${(e as Error).message}\n`)
    process.exitCode = 2
    return undefined
  }
  if (dryRun) {
    process.stdout.write(`${JSON.stringify(options, null, 2)}\n=== END OF DRY RUN ===\n`)
    return undefined
  }
  if (resolved === undefined) {
    process.stderr.write(
      `${command}: no cluster is configured (no --kubeconfig, no $KUBECONFIG, not in a cluster, no ~/.kube/config)\n`,
    )
    process.exitCode = 2
    return undefined
  }
  return { options, resolved }
}
