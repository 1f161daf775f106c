/**
 * Which senders the node sends for without their keys (`hardhat_impersonateAccount`,
 * `anvil_autoImpersonateAccount`): `eth_sendTransaction` from such an address gets a stand-in
 * signature (`chain/impersonation-signature.ts`). Kept in memory: a restart ends every
 * impersonation, as a fresh Hardhat or anvil node has none.
 */
export class Impersonation {
  private readonly accounts = new Set<string>();
  private everyone = false;

  /** Starts impersonating `address` (0x-hex, any case). */
  start(address: string): void {
    this.accounts.add(address.toLowerCase());
  }

  /** Stops impersonating `address`; false if it was not. */
  stop(address: string): boolean {
    return this.accounts.delete(address.toLowerCase());
  }

  /** Impersonates every sender while `enabled` (anvil's auto-impersonation). */
  setAuto(enabled: boolean): void {
    this.everyone = enabled;
  }

  covers(address: string): boolean {
    return this.everyone || this.accounts.has(address.toLowerCase());
  }

  clear(): void {
    this.accounts.clear();
    this.everyone = false;
  }
}
