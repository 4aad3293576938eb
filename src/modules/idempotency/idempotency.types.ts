export interface IdempotencyRow {
  fingerprint: string;
  state: 'running' | 'done';
  status: number | null;
  contentType: string | null;
  body: string | null;
  createdAt: number;
}
