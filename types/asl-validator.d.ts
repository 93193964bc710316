declare module 'asl-validator' {
  interface Result {
    isValid: boolean;
    errors: { message: string }[];
    errorsText(separator?: string): string;
  }
  export default function aslValidator(definition: unknown, options?: { checkPaths?: boolean; checkArn?: boolean }): Result;
}
