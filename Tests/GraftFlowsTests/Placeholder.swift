// Tests for the flow document, the contract checker and the runner.
