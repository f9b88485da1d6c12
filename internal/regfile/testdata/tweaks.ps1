#Requires -RunAsAdministrator
<#
  Latency tweaks as PowerShell scripts share them: the registry provider's
  cmdlets and reg.exe among other commands. Written for latlab's tests.
#>
$ErrorActionPreference = 'SilentlyContinue'
Write-Host "Applying tweaks..." -ForegroundColor Cyan
Set-ItemProperty -Path "HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Multimedia\SystemProfile" -Name "NetworkThrottlingIndex" -Value 0xFFFFFFFF -Type DWord -Force
New-ItemProperty -Path 'HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Multimedia\SystemProfile' -Name 'SystemResponsiveness' -PropertyType DWORD -Value 0 -Force | Out-Null
sp "HKLM:\SYSTEM\CurrentControlSet\Control\PriorityControl" Win32PrioritySeparation 38
Set-ItemProperty -LiteralPath "Registry::HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Control\Session Manager\kernel" `
    -Name GlobalTimerResolutionRequests `
    -Value 1 `
    -Ty DWord -ea SilentlyContinue
New-Item -Path "HKCU:\Software\latlab-test" -Force | Out-Null; New-ItemProperty -Path "HKCU:\Software\latlab-test" -Name "Fresh" -Value 5
Set-ItemProperty -Path HKCU:\Software\latlab-test -Name Text -Value 'it''s "quoted"' -Type String
Set-ItemProperty -Path HKCU:\Software\latlab-test -Name Expand -Value "%SystemRoot%`tx" -Type ExpandString
Set-ItemProperty -Path HKCU:\Software\latlab-test -Name Multi -Value @("a", "b") -Type MultiString
Set-ItemProperty -Path HKCU:\Software\latlab-test -Name Multi2 -Value 'one','two' -Type MultiString
Set-ItemProperty -Path HKCU:\Software\latlab-test -Name Bin -Value ([byte[]](0x01, 0x02, 0xff)) -Type Binary
Set-ItemProperty -Path HKCU:\Software\latlab-test -Name Big -Value 4294967296 -Type QWord
Set-ItemProperty -Path HKCU:\Software\latlab-test -Name Empty -Value $null -Type DWord
Remove-ItemProperty -Path "HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Multimedia\SystemProfile" -Name "NoLazyMode" -ErrorAction SilentlyContinue
Remove-Item -Path "HKLM:\SOFTWARE\Policies\Microsoft\Windows\Psched" -Recurse -Force
reg add "HKCU\Control Panel\Desktop" /v MenuShowDelay /t REG_SZ /d 0 /f
reg.exe add 'HKCU\Control Panel\Mouse' /v MouseSpeed /t REG_SZ /d "100%" /f 2>&1 | Out-Null
foreach ($i in Get-ChildItem "HKLM:\SYSTEM\CurrentControlSet\Services\Tcpip\Parameters\Interfaces") {
    Set-ItemProperty -Path $i.PSPath -Name TcpAckFrequency -Value 1 -Type DWord
}
Set-ItemProperty -Path "HKCU:\Software\latlab-test" -Name Bad -Value 1 -Type REG_DWORD
Set-ItemProperty -Path "HKLM:\SYSTEM\CurrentControlSet\Services\*" -Name Start -Value 4 -Type DWord
Invoke-Expression "reg add HKCU\Software\latlab-test /v Hidden /d 1 /f"
# Set-ItemProperty -Path HKCU:\Software\latlab-test -Name Commented -Value 1
Stop-Service -Name SysMain -Force
bcdedit /set useplatformtick yes
