import { expect } from "vitest";
import { WebgateError } from "../../shared/errors";

/** Awaits `promise`, asserts it rejects with a WebgateError, and returns that error. */
export async function expectWebgateError(promise: Promise<unknown>): Promise<WebgateError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(WebgateError);
    return error as WebgateError;
  }
  throw new Error("expected a rejection with a WebgateError");
}

/** The code of the WebgateError `promise` rejects with. */
export async function codeOf(promise: Promise<unknown>): Promise<string> {
  return (await expectWebgateError(promise)).code;
}
