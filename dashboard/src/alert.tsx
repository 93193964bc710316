/** An error the user should hear about at once (role="alert"); nothing when there is none. */
export function Alert({ message, id }: { message: string | undefined; id?: string }) {
  if (!message) return null;
  return (
    <p id={id} class="error" role="alert">
      {message}
    </p>
  );
}
