/** A stack of clean-up steps run last-in first-out, at most once, never throwing. */
export class Cleanup {
  private readonly steps: Array<{ readonly name: string; readonly run: () => Promise<void> | void }> = [];
  private running: Promise<void> | undefined;

  /** Registers a step; it runs before every step registered earlier. */
  add(name: string, run: () => Promise<void> | void): void {
    this.steps.push({ name, run });
  }

  /** Runs every step once; a failing step is reported and the rest still run. */
  run(): Promise<void> {
    this.running ??= (async () => {
      for (let step = this.steps.pop(); step !== undefined; step = this.steps.pop()) {
        try {
          await step.run();
        } catch (error) {
          process.stderr.write(`# bench: clean-up "${step.name}" failed: ${String(error)}\n`);
        }
      }
    })();
    return this.running;
  }
}
