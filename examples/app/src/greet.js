// Greets a user by name; names longer than 64 characters are cut.
export function greet(name) {
  const short = String(name).slice(0, 64);
  return `Hello, ${short}!`;
}
