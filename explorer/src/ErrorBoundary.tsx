// A page that fails to draw (a node answering a shape no reader foresaw) shows why instead of
// leaving a blank screen; the header and search stay usable.
import { Component, type ComponentChildren } from "preact";

interface State {
  readonly error: string | null;
}

export class ErrorBoundary extends Component<{ children: ComponentChildren }, State> {
  override state: State = { error: null };

  static override getDerivedStateFromError(error: unknown): State {
    return { error: error instanceof Error ? error.message : String(error) };
  }

  override render() {
    if (this.state.error === null) return this.props.children;
    return (
      <div class="notice" role="alert">
        <h1>This page could not be drawn</h1>
        <p>{this.state.error}</p>
      </div>
    );
  }
}
