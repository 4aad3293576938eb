import { admin } from './api';

/** Who a send to everyone reaches, counted by the server (GET /api/admin/apps/{appId}/audience). */
export interface Audience {
  endUsers: number;
  devices: number;
  ios: number;
  android: number;
  /** Browsers with a Web Push subscription. */
  web: number;
  iosStartable: number;
}

export const audienceOf = (appId: string, testersOnly = false) =>
  admin<Audience>('GET', `/apps/${encodeURIComponent(appId)}/audience${testersOnly ? '?testersOnly=true' : ''}`);

/** "1 device", "3 devices". */
export const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`;
