/** A device's platform as the API names it. */
export type Platform = 'ios' | 'android' | 'web';

const NAMES: Record<Platform, string> = { ios: 'iOS', android: 'Android', web: 'Web' };

/**
 * A platform as people read it.
 * @example platformName('web') // 'Web'
 */
export const platformName = (platform: Platform): string => NAMES[platform];
